import type { FastifyRequest } from 'fastify';
import { PlatformError } from '@ppay/kernel';
import type { GatewayDeps } from '../deps';

/** Runs a credential check under the per-address failure budget: failures count, successes do not. */
async function guarded<T>(deps: GatewayDeps, req: FastifyRequest, verify: () => Promise<T>): Promise<T> {
  deps.authFailures.check(req.ip);
  try {
    return await verify();
  } catch (err) {
    const refused = err instanceof PlatformError && (err.code === 'INVALID_API_KEY' || err.code === 'UNAUTHORIZED');
    if (refused) deps.authFailures.record(req.ip);
    throw err;
  }
}

/** preValidation for partner routes: X-API-Key → caller {merchant, mode, key}. */
export function apiKeyAuth(deps: GatewayDeps) {
  return async (req: FastifyRequest) => {
    const principal = await guarded(deps, req, async () => {
      const header = req.headers['x-api-key'];
      if (typeof header !== 'string' || header.trim() === '') {
        throw new PlatformError('INVALID_API_KEY', undefined, { detail: 'X-API-Key header is missing' });
      }
      return deps.apiKeys.authenticate(header.trim());
    });
    req.caller = {
      requestId: req.id,
      merchantId: principal.merchantId,
      mode: principal.mode,
      auth: 'api_key',
      apiKeyId: principal.keyId,
    };
  };
}

/** preValidation for key management and dashboard routes: x-id-key user token. */
export function userTokenAuth(deps: GatewayDeps, options: { environmentHeader?: boolean } = {}) {
  return async (req: FastifyRequest) => {
    const user = await guarded(deps, req, () => deps.userTokens.verify(req.headers['x-id-key']));
    let mode: 'live' | 'sandbox' | undefined;
    if (options.environmentHeader) {
      const env = req.headers['x-environment'];
      if (env !== 'live' && env !== 'sandbox') {
        throw new PlatformError('INVALID_ENVIRONMENT', undefined, { param: 'X-Environment' });
      }
      mode = env;
    }
    req.caller = { requestId: req.id, merchantId: user.merchantId, userId: user.userId, auth: 'user_token', mode };
  };
}
