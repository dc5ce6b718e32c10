import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * Typed configuration from environment variables, validated at boot. A process with bad config
 * exits before listening, printing every problem at once.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

// Values of these keys never appear in error output.
const SENSITIVE = /SECRET|KEY|PEPPER|TOKEN|PASSWORD|URI|URL/;

export function loadConfig<P extends TProperties>(
  schema: TObject<P>,
  env: NodeJS.ProcessEnv = process.env,
): Static<TObject<P>> {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const withDefaults = Value.Default(schema, raw);
  const converted = Value.Convert(schema, withDefaults);
  const problems = [...Value.Errors(schema, converted)].map((e) => {
    const key = e.path.replace(/^\//, '') || '(root)';
    const shown = SENSITIVE.test(key) ? '(redacted)' : JSON.stringify(e.value);
    return `${key}: ${e.message}${e.path ? ` (got ${shown})` : ''}`;
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return converted as Static<TObject<P>>;
}

export const Port = (defaultPort: number) => Type.Integer({ minimum: 0, maximum: 65535, default: defaultPort });

export const LogLevel = Type.Union(
  ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
  { default: 'info' },
);
