import { Metadata } from '@grpc/grpc-js';
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

const KEYS = {
  merchantId: 'x-ppay-merchant-id',
  mode: 'x-ppay-mode',
  auth: 'x-ppay-auth',
  apiKeyId: 'x-ppay-key-id',
  userId: 'x-ppay-user-id',
  requestId: 'x-request-id',
} as const;

export function callerToMetadata(caller: Partial<Caller> & { requestId: string }): Metadata {
  const md = new Metadata();
  md.set(KEYS.requestId, caller.requestId);
  if (caller.merchantId !== undefined) md.set(KEYS.merchantId, String(caller.merchantId));
  if (caller.mode) md.set(KEYS.mode, caller.mode);
  if (caller.auth) md.set(KEYS.auth, caller.auth);
  if (caller.apiKeyId) md.set(KEYS.apiKeyId, caller.apiKeyId);
  if (caller.userId) md.set(KEYS.userId, caller.userId);
  return md;
}

function first(md: Metadata, key: string): string | undefined {
  const value = md.get(key)[0];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function requestIdFromMetadata(md: Metadata): string | undefined {
  return first(md, KEYS.requestId);
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

export function callerFromMetadata(md: Metadata, fallbackRequestId: () => string): CallerInfo {
  const merchant = first(md, KEYS.merchantId);
  const merchantId = merchant !== undefined ? Number(merchant) : undefined;
  const mode = first(md, KEYS.mode);
  const auth = first(md, KEYS.auth);
  return {
    merchantId: merchantId !== undefined && Number.isSafeInteger(merchantId) ? merchantId : undefined,
    mode: mode === 'live' || mode === 'sandbox' ? mode : undefined,
    auth: auth === 'api_key' || auth === 'user_token' || auth === 'admin' || auth === 'internal' ? auth : undefined,
    apiKeyId: first(md, KEYS.apiKeyId),
    userId: first(md, KEYS.userId),
    requestId: first(md, KEYS.requestId) ?? fallbackRequestId(),
  };
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
