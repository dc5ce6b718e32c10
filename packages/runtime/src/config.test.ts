import { Type } from '@sinclair/typebox';
import { ConfigError, loadConfig, Port } from './config';

describe('typed config from env', () => {
  const schema = Type.Object({
    PORT: Port(8080),
    NAME: Type.String({ minLength: 1 }),
    SECRET_KEY: Type.String({ minLength: 10 }),
  });

  it('applies defaults and coerces numbers', () => {
    expect(loadConfig(schema, { NAME: 'x', SECRET_KEY: '0123456789', PORT: '9000' })).toEqual({
      NAME: 'x',
      SECRET_KEY: '0123456789',
      PORT: 9000,
    });
    expect(loadConfig(schema, { NAME: 'x', SECRET_KEY: '0123456789' }).PORT).toBe(8080);
  });

  it('reports every problem at once and never echoes secret values', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig(schema, { PORT: '70000', SECRET_KEY: 'short-pw' });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems.join('\n')).toMatch(/PORT/);
    expect(error!.problems.join('\n')).toMatch(/NAME/);
    expect(error!.message).not.toContain('short-pw');
    expect(error!.message).toContain('(redacted)');
  });
});
