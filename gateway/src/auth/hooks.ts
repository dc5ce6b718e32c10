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

/**
 * preValidation for partner routes: X-API-Key → caller {merchant, mode, key}. A route whose spec error
 * table words the 401 differently (spec 7.2, 7.3: "Unauthorized" rather than 7.1's "Invalid API key")
 * says so in its `config.authFailureMessage`; the code stays INVALID_API_KEY.
 */
export function apiKeyAuth(deps: GatewayDeps) {
  return async (req: FastifyRequest) => {
    const message = req.routeOptions.config?.authFailureMessage;
    const principal = await guarded(deps, req, async () => {
      const header = req.headers['x-api-key'];
      if (typeof header !== 'string' || header.trim() === '') {
        throw new PlatformError('INVALID_API_KEY', message, { detail: 'X-API-Key header is missing' });
      }
      return deps.apiKeys.authenticate(header.trim()).catch((err: unknown) => {
        if (message && err instanceof PlatformError && err.code === 'INVALID_API_KEY') {
          throw new PlatformError('INVALID_API_KEY', message, { detail: err.detail });
        }
        throw err;
      });
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

/**
 * preValidation after apiKeyAuth: the sandbox helpers (routes under `<prefix>/sandbox/`) answer sandbox
 * keys only, so a live key gets its 403 before anything about its body (the services check it too).
 */
export function sandboxKeysOnly(prefix: string) {
  const sandboxRoutes = `${prefix}/sandbox/`;
  return async (req: FastifyRequest) => {
    if (req.routeOptions.url?.startsWith(sandboxRoutes) && req.caller?.mode !== 'sandbox') {
      throw new PlatformError('PERMISSION_DENIED', 'Sandbox test helpers are only available with sandbox keys');
    }
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

/** preValidation for the platform admin API: a user token (x-id-key) carrying the platform_admin role. */
export function adminTokenAuth(deps: GatewayDeps) {
  return async (req: FastifyRequest) => {
    const admin = await guarded(deps, req, () => deps.userTokens.verifyAdmin(req.headers['x-id-key']));
    req.caller = { requestId: req.id, userId: admin.userId, auth: 'admin' };
  };
}
