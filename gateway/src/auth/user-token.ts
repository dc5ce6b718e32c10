import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { createSecretKey, type KeyObject } from 'node:crypto';
import { PlatformError } from '@ppay/kernel';

export interface UserPrincipal {
  userId: string;
  merchantId: number;
}

export interface UserTokenOptions {
  secret?: string;
  jwksUrl?: string;
  issuer: string;
  audience: string;
  /** Oldest token accepted (since its `iat`), whatever its own `exp` says. */
  maxAgeSeconds: number;
}

const unauthorized = (detail: string) => new PlatformError('UNAUTHORIZED', undefined, { detail });
const MAX_TOKEN_LENGTH = 8192;

/** The role claim of a platform administrator's token (admin API, KYC review). */
export const ADMIN_ROLE = 'platform_admin';

/**
 * Verifies the dashboard user token sent in `x-id-key`: a JWT with `sub` (user id) and
 * `merchant_id` (the business the user acts for). HS256 with a shared secret locally; the
 * identity provider's JWKS in production.
 */
export class UserTokenVerifier {
  private readonly key: KeyObject | JWTVerifyGetKey;
  private readonly algorithms: string[];

  constructor(private readonly options: UserTokenOptions) {
    if (options.jwksUrl) {
      this.key = createRemoteJWKSet(new URL(options.jwksUrl));
      this.algorithms = ['RS256', 'ES256', 'PS256', 'EdDSA'];
    } else if (options.secret) {
      this.key = createSecretKey(Buffer.from(options.secret, 'utf8'));
      this.algorithms = ['HS256'];
    } else {
      throw new Error('Either AUTH_JWKS_URL or AUTH_JWT_SECRET must be configured');
    }
  }

  async verify(token: string | string[] | undefined): Promise<UserPrincipal> {
    const payload = await this.payloadOf(token);
    const merchantId = Number(payload.merchant_id);
    if (!Number.isSafeInteger(merchantId) || merchantId <= 0) throw unauthorized('token has no merchant_id claim');
    return { userId: payload.sub, merchantId };
  }

  /**
   * A platform administrator's token: the same verification, plus the role claim `platform_admin`
   * (`role: "platform_admin"`, or listed in `roles`). No merchant: admins act on the platform. A valid
   * token without the role is 403 ADMIN_ROLE_REQUIRED, not 401.
   */
  async verifyAdmin(token: string | string[] | undefined): Promise<{ userId: string }> {
    const payload = await this.payloadOf(token);
    const roles = Array.isArray(payload.roles) ? payload.roles : [];
    if (payload.role !== ADMIN_ROLE && !roles.includes(ADMIN_ROLE)) throw new PlatformError('ADMIN_ROLE_REQUIRED');
    return { userId: payload.sub };
  }

  private async payloadOf(token: string | string[] | undefined): Promise<JWTPayload & { sub: string }> {
    if (typeof token !== 'string' || token.trim() === '') throw unauthorized('x-id-key header is missing');
    try {
      if (token.length > MAX_TOKEN_LENGTH) throw unauthorized('token is too long');
      const { payload } = await jwtVerify(token.trim(), this.key as KeyObject, {
        issuer: this.options.issuer,
        audience: this.options.audience,
        algorithms: this.algorithms,
        // A token that never expires, or was not stamped when issued, is not a session token.
        requiredClaims: ['exp', 'iat', 'sub'],
        maxTokenAge: this.options.maxAgeSeconds,
      });
      if (typeof payload.sub !== 'string' || !payload.sub) throw unauthorized('token has no subject');
      return payload as JWTPayload & { sub: string };
    } catch (err) {
      if (err instanceof PlatformError) throw err;
      if (err instanceof joseErrors.JWTExpired) throw unauthorized('token has expired');
      if (err instanceof joseErrors.JWTClaimValidationFailed) throw unauthorized(`token claim invalid: ${err.claim}`);
      throw unauthorized('token is malformed or its signature is invalid');
    }
  }
}
