import { SignJWT } from 'jose';
import { createSecretKey } from 'node:crypto';

export interface TokenOptions {
  secret: string;
  issuer?: string;
  /** One audience, or several (the fuzzer's one token reaches the dashboard and the admin API). */
  audience?: string | string[];
  expiresIn?: string;
  /** A role claim as well (with the admin audience and `acr`, the token also reaches the admin API). */
  role?: string;
  /** The authentication context claim (`mfa`: what the admin API requires by default). */
  acr?: string;
}

/** The audiences the gateway expects by default (AUTH_JWT_AUDIENCE, AUTH_ADMIN_AUDIENCE). */
export const DASHBOARD_AUDIENCE = 'ppay-dashboard';
export const ADMIN_AUDIENCE = 'ppay-admin';

/**
 * Mints a dashboard user token (x-id-key) for local use. In production the identity provider
 * issues these and the gateway verifies them against its JWKS.
 */
export function mintUserToken(userId: string, merchantId: number, options: TokenOptions): Promise<string> {
  return new SignJWT({
    merchant_id: merchantId,
    ...(options.role ? { role: options.role } : {}),
    ...(options.acr ? { acr: options.acr } : {}),
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuer(options.issuer ?? 'ppay-local')
    .setAudience(options.audience ?? DASHBOARD_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '24h')
    .sign(createSecretKey(Buffer.from(options.secret, 'utf8')));
}

/**
 * Mints a platform administrator token for the admin API (e.g. the live KYC review queue): the admin
 * audience, `acr: mfa` (locally the devstack stands in for the identity provider's MFA) and the role
 * claim platform_admin, for at most an hour. In production the identity provider issues these.
 */
export function mintAdminToken(userId: string, options: TokenOptions): Promise<string> {
  return new SignJWT({ role: 'platform_admin', acr: options.acr ?? 'mfa' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setIssuer(options.issuer ?? 'ppay-local')
    .setAudience(options.audience ?? ADMIN_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '1h')
    .sign(createSecretKey(Buffer.from(options.secret, 'utf8')));
}
