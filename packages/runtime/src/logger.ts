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
  '*.client_secret',
  // Bank account and identity numbers (KYC, payouts): never logged, whatever object carries them.
  '*.account_number',
  '*.bank_account_number',
  '*.id_number',
  'api_key',
  'webhook_secret',
  'account_number',
  'id_number',
];

/** `destination` defaults to stdout; tests pass a stream to read what was logged. */
export function createLogger(service: string, level = 'info', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
  };
  return destination ? pino(options, destination) : pino(options);
}
