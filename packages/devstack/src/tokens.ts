import { SignJWT } from 'jose';
import { createSecretKey } from 'node:crypto';

export interface TokenOptions {
  secret: string;
  issuer?: string;
  audience?: string;
  expiresIn?: string;
  /** A role claim as well (the fuzzer's one token reaches the dashboard and the admin API). */
  role?: string;
}

/**
 * Mints a dashboard user token (x-id-key) for local use. In production the identity provider
 * issues these and the gateway verifies them against its JWKS.
 */
export function mintUserToken(userId: string, merchantId: number, options: TokenOptions): Promise<string> {
  return new SignJWT({ merchant_id: merchantId, ...(options.role ? { role: options.role } : {}) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuer(options.issuer ?? 'ppay-local')
    .setAudience(options.audience ?? 'ppay-dashboard')
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '24h')
    .sign(createSecretKey(Buffer.from(options.secret, 'utf8')));
}

/**
 * Mints a platform administrator token (x-id-key with the role claim platform_admin) for the admin
 * API, e.g. the live KYC review queue. In production the identity provider issues these.
 */
export function mintAdminToken(userId: string, options: TokenOptions): Promise<string> {
  return new SignJWT({ role: 'platform_admin' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuer(options.issuer ?? 'ppay-local')
    .setAudience(options.audience ?? 'ppay-dashboard')
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '12h')
    .sign(createSecretKey(Buffer.from(options.secret, 'utf8')));
}
