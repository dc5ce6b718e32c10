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
  /** Platform administrators' tokens (admin API): their own audience, MFA and a short life. */
  admin: AdminTokenPolicy;
}

export interface AdminTokenPolicy {
  /** The admin API's audience (`ppay-admin`): a dashboard token is never an admin token. */
  audience: string;
  /**
   * Values of the authentication context that prove MFA: the token's `acr` is one of them, or its `amr`
   * lists one (e.g. `mfa`, or an identity provider's `urn:…:mfa` level).
   */
  acceptedAcr: readonly string[];
  /** Oldest admin token accepted, since its `iat` (at most an hour). */
  maxAgeSeconds: number;
}

/** The longest an admin token may live (Hardening 2 item 8). */
export const ADMIN_TOKEN_MAX_AGE_SECONDS = 3600;

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
    if (options.admin.audience === options.audience) {
      throw new Error(
        'AUTH_ADMIN_AUDIENCE must differ from AUTH_JWT_AUDIENCE: a dashboard token must never be an admin token',
      );
    }
    if (options.admin.acceptedAcr.length === 0) throw new Error('AUTH_ADMIN_REQUIRED_ACR names no value');
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
   * A platform administrator's token: issued for the admin API's own audience (a dashboard token is
   * 401 here), at most an hour old, with MFA in its authentication context (`acr`, or `amr`), and the
   * role claim `platform_admin` (`role: "platform_admin"`, or listed in `roles`). No merchant: admins act
   * on the platform. A valid admin token without the role is 403 ADMIN_ROLE_REQUIRED, not 401.
   */
  async verifyAdmin(token: string | string[] | undefined): Promise<{ userId: string }> {
    const { admin } = this.options;
    const payload = await this.payloadOf(token, {
      audience: admin.audience,
      maxAgeSeconds: Math.min(admin.maxAgeSeconds, ADMIN_TOKEN_MAX_AGE_SECONDS),
    });
    const amr = Array.isArray(payload.amr) ? payload.amr : [];
    const mfa = admin.acceptedAcr.some((level) => payload.acr === level || amr.includes(level));
    if (!mfa)
      throw unauthorized(`an admin token needs multi-factor authentication (acr: ${admin.acceptedAcr.join(' | ')})`);
    const roles = Array.isArray(payload.roles) ? payload.roles : [];
    if (payload.role !== ADMIN_ROLE && !roles.includes(ADMIN_ROLE)) throw new PlatformError('ADMIN_ROLE_REQUIRED');
    return { userId: payload.sub };
  }

  private async payloadOf(
    token: string | string[] | undefined,
    expect: { audience: string; maxAgeSeconds: number } = this.options,
  ): Promise<JWTPayload & { sub: string }> {
    if (typeof token !== 'string' || token.trim() === '') throw unauthorized('x-id-key header is missing');
    try {
      if (token.length > MAX_TOKEN_LENGTH) throw unauthorized('token is too long');
      const { payload } = await jwtVerify(token.trim(), this.key as KeyObject, {
        issuer: this.options.issuer,
        audience: expect.audience,
        algorithms: this.algorithms,
        // A token that never expires, or was not stamped when issued, is not a session token.
        requiredClaims: ['exp', 'iat', 'sub'],
        maxTokenAge: expect.maxAgeSeconds,
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
