import { SignJWT } from 'jose';
import { createSecretKey } from 'node:crypto';
import { UserTokenVerifier } from './user-token';

const secret = 's'.repeat(40);
const verifier = new UserTokenVerifier({ secret, issuer: 'ppay-local', audience: 'ppay-dashboard' });
const sign = (
  claims: Record<string, unknown>,
  opts: { iss?: string; aud?: string; exp?: string; key?: string; sub?: string } = {},
) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(opts.sub ?? 'usr_1')
    .setIssuer(opts.iss ?? 'ppay-local')
    .setAudience(opts.aud ?? 'ppay-dashboard')
    .setExpirationTime(opts.exp ?? '5m')
    .sign(createSecretKey(Buffer.from(opts.key ?? secret)));

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

  it('refuses "alg: none" tokens', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    const body = Buffer.from(
      JSON.stringify({ sub: 'u', merchant_id: 1, iss: 'ppay-local', aud: 'ppay-dashboard' }),
    ).toString('base64url');
    await expect(verifier.verify(`${header}.${body}.`)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});
