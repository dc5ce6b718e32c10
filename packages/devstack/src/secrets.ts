import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Secrets for a local platform, generated once per state directory and kept there (mode 0600) so
 * keys created yesterday still verify today. Production takes them from a Kubernetes Secret.
 */
export interface LocalSecrets {
  API_KEY_PEPPER: string;
  SECRETS_ENCRYPTION_KEY: string;
  AUTH_JWT_SECRET: string;
}

export function loadOrCreateSecrets(stateDir: string): LocalSecrets {
  const file = path.join(stateDir, 'local-secrets.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as LocalSecrets;
  const secrets: LocalSecrets = {
    API_KEY_PEPPER: randomBytes(32).toString('base64'),
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    AUTH_JWT_SECRET: randomBytes(32).toString('base64url'),
  };
  fs.mkdirSync(stateDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}
