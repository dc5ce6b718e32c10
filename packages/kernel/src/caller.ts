import { PlatformError } from './errors';

export type Mode = 'sandbox' | 'live';
export const MODES: readonly Mode[] = ['sandbox', 'live'];

/**
 * Who is calling, established by the gateway (API key or user token) and carried to every
 * service call in gRPC metadata. Services trust it: only the gateway and sibling services can
 * reach them (NetworkPolicy in Helm, loopback locally).
 */
export interface Caller {
  merchantId: number;
  /** Set for API-key calls (from the key) and dashboard payout calls (X-Environment). */
  mode?: Mode;
  /**
   * How the gateway authenticated the request: a partner API key, a dashboard user token, a platform
   * administrator token (a user token with the platform_admin role), or a sibling / CLI call.
   */
  auth: 'api_key' | 'user_token' | 'admin' | 'internal';
  apiKeyId?: string;
  userId?: string;
  requestId: string;
}

/** Partial view of the caller: internal calls (CLI, sibling services) may carry no merchant. */
export interface CallerInfo {
  merchantId?: number;
  mode?: Mode;
  auth?: Caller['auth'];
  apiKeyId?: string;
  userId?: string;
  requestId: string;
}

/** For operations that need an authenticated merchant (every partner-facing RPC). */
export function requireMerchant(caller: CallerInfo): Caller {
  if (caller.merchantId === undefined || caller.auth === undefined) {
    throw new PlatformError('UNAUTHORIZED', undefined, { detail: 'The call carries no authenticated merchant' });
  }
  return caller as Caller;
}

/** For partner operations whose behaviour depends on sandbox vs live. */
export function requireMode(caller: CallerInfo): Mode {
  if (!caller.mode)
    throw new PlatformError('UNAUTHORIZED', undefined, { detail: 'The call carries no sandbox/live mode' });
  return caller.mode;
}

/** Sandbox test helpers answer sandbox keys only: a live key gets 403 and nothing changes. */
export function requireSandboxMode(caller: CallerInfo): Mode {
  const mode = requireMode(caller);
  if (mode !== 'sandbox') {
    throw new PlatformError('PERMISSION_DENIED', 'Sandbox test helpers are only available with sandbox keys');
  }
  return mode;
}

/** For the platform administration API (admin token: a user token with the platform_admin role). */
export function requireAdmin(caller: CallerInfo): { userId: string } {
  if (caller.auth !== 'admin' || !caller.userId) {
    throw new PlatformError('ADMIN_ROLE_REQUIRED');
  }
  return { userId: caller.userId };
}

export function requireInternal(caller: CallerInfo): void {
  if (caller.auth !== 'internal') {
    throw new PlatformError('PERMISSION_DENIED', undefined, { detail: 'Platform-internal operation' });
  }
}
