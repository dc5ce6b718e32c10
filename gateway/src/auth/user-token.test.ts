import { SignJWT } from 'jose';
import { createSecretKey } from 'node:crypto';
import { UserTokenVerifier } from './user-token';

const secret = 's'.repeat(40);
const verifier = new UserTokenVerifier({
  secret,
  issuer: 'ppay-local',
  audience: 'ppay-dashboard',
  maxAgeSeconds: 86_400,
  admin: { audience: 'ppay-admin', acceptedAcr: ['mfa', 'urn:idp:loa:mfa'], maxAgeSeconds: 3600 },
});
const sign = (
  claims: Record<string, unknown>,
  opts: { iss?: string; aud?: string; exp?: string | null; key?: string; sub?: string; iat?: number | null } = {},
) => {
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(opts.sub ?? 'usr_1')
    .setIssuer(opts.iss ?? 'ppay-local')
    .setAudience(opts.aud ?? 'ppay-dashboard');
  if (opts.exp !== null) jwt.setExpirationTime(opts.exp ?? '5m');
  if (opts.iat !== null) jwt.setIssuedAt(opts.iat);
  return jwt.sign(createSecretKey(Buffer.from(opts.key ?? secret)));
};

describe('UserTokenVerifier', () => {
  it('accepts a valid token and returns user and merchant', async () => {
    await expect(verifier.verify(await sign({ merchant_id: 1005 }))).resolves.toEqual({
      userId: 'usr_1',
      merchantId: 1005,
    });
  });

  it.each([
    ['missing', async () => undefined, 'x-id-key header is missing'],
    ['wrong issuer', () => sign({ merchant_id: 1 }, { iss: 'evil' }), 'token claim invalid: iss'],
    ['wrong audience', () => sign({ merchant_id: 1 }, { aud: 'other' }), 'token claim invalid: aud'],
    ['no expiry', () => sign({ merchant_id: 1 }, { exp: null }), 'token claim invalid: exp'],
    ['not stamped when issued', () => sign({ merchant_id: 1 }, { iat: null }), 'token claim invalid: iat'],
    [
      'older than the maximum token age',
      () => sign({ merchant_id: 1 }, { iat: Math.floor(Date.now() / 1000) - 90_000, exp: '1h' }),
      'token has expired',
    ],
    ['expired', () => sign({ merchant_id: 1 }, { exp: '-10s' }), 'token has expired'],
    [
      'bad signature',
      () => sign({ merchant_id: 1 }, { key: 'k'.repeat(40) }),
      'token is malformed or its signature is invalid',
    ],
    ['no merchant', () => sign({}), 'token has no merchant_id claim'],
    ['merchant not an integer', () => sign({ merchant_id: 'abc' }), 'token has no merchant_id claim'],
  ])('%s → Unauthorized with a reason', async (_n, make, detail) => {
    await expect(verifier.verify(await make())).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'Unauthorized',
      detail,
    });
  });

  describe('admin tokens (Hardening 2 item 8)', () => {
    const admin = { role: 'platform_admin', acr: 'mfa' };
    const now = () => Math.floor(Date.now() / 1000);

    it('accepts the admin audience with MFA (acr, or amr) and the role', async () => {
      await expect(verifier.verifyAdmin(await sign(admin, { aud: 'ppay-admin' }))).resolves.toEqual({
        userId: 'usr_1',
      });
      const viaAmr = await sign({ roles: ['platform_admin'], amr: ['pwd', 'urn:idp:loa:mfa'] }, { aud: 'ppay-admin' });
      await expect(verifier.verifyAdmin(viaAmr)).resolves.toEqual({ userId: 'usr_1' });
    });

    it.each([
      ['a dashboard token (its audience)', () => sign(admin), 'token claim invalid: aud'],
      [
        'no MFA',
        () => sign({ role: 'platform_admin' }, { aud: 'ppay-admin' }),
        expect.stringContaining('multi-factor'),
      ],
      [
        'a weaker acr',
        () => sign({ role: 'platform_admin', acr: 'pwd', amr: ['pwd'] }, { aud: 'ppay-admin' }),
        expect.stringContaining('multi-factor'),
      ],
      [
        'older than an hour, whatever its exp',
        () => sign(admin, { aud: 'ppay-admin', iat: now() - 3601, exp: '12h' }),
        'token has expired',
      ],
    ])('refuses %s: 401', async (_n, make, detail) => {
      await expect(verifier.verifyAdmin(await make())).rejects.toMatchObject({ code: 'UNAUTHORIZED', detail });
    });

    it('a valid admin token without the role is 403; an admin token is no dashboard token', async () => {
      await expect(verifier.verifyAdmin(await sign({ acr: 'mfa' }, { aud: 'ppay-admin' }))).rejects.toMatchObject({
        code: 'ADMIN_ROLE_REQUIRED',
      });
      await expect(
        verifier.verify(await sign({ ...admin, merchant_id: 1 }, { aud: 'ppay-admin' })),
      ).rejects.toMatchObject({ code: 'UNAUTHORIZED', detail: 'token claim invalid: aud' });
    });

    it('refuses a configuration whose admin audience is the dashboard one, or without an MFA value', () => {
      const base = { secret, issuer: 'i', audience: 'ppay-dashboard', maxAgeSeconds: 60 };
      expect(
        () =>
          new UserTokenVerifier({
            ...base,
            admin: { audience: 'ppay-dashboard', acceptedAcr: ['mfa'], maxAgeSeconds: 60 },
          }),
      ).toThrow('AUTH_ADMIN_AUDIENCE');
      expect(
        () => new UserTokenVerifier({ ...base, admin: { audience: 'ppay-admin', acceptedAcr: [], maxAgeSeconds: 60 } }),
      ).toThrow('AUTH_ADMIN_REQUIRED_ACR');
    });
  });

  it('refuses "alg: none" tokens', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    const body = Buffer.from(
      JSON.stringify({ sub: 'u', merchant_id: 1, iss: 'ppay-local', aud: 'ppay-dashboard' }),
    ).toString('base64url');
    await expect(verifier.verify(`${header}.${body}.`)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});
