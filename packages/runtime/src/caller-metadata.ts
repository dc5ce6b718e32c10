import { Metadata } from '@grpc/grpc-js';
import type { Caller, CallerInfo } from '@ppay/kernel';

/** The caller as gRPC metadata: the gateway writes it, every service reads it (see `Caller`). */
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
