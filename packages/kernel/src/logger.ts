import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs. Credentials never reach the log: the known header and field names are
 * redacted wherever they appear, and code never logs request bodies wholesale.
 */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers["x-id-key"]',
  'req.headers.authorization',
  'headers["x-api-key"]',
  'headers["x-id-key"]',
  '*.api_key',
  '*.webhook_secret',
  '*.password',
  '*.secret',
  'api_key',
  'webhook_secret',
];

export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
  });
}
