import { PlatformError, requireMerchant, requireMode, type CallerInfo, type Mode } from '@ppay/kernel';
import type { OperatorCaller } from './ports';

/** What several kyc gRPC handlers decode the same way from a request and its caller. */

export function positive(value: number | undefined, param: string): number {
  if (!value || !Number.isSafeInteger(value) || value < 1) {
    throw new PlatformError('VALIDATION_FAILED', `${param} must be a positive integer`, { param });
  }
  return value;
}

/** A partner call: the operator's merchant id and the mode of its API key. */
export function operator(caller: CallerInfo, deadline?: Date): OperatorCaller {
  return { operatorId: requireMerchant(caller).merchantId, mode: requireMode(caller), deadline };
}

/** The mode an internal call names in its request (the caller is a service, not an API key). */
export function requestedMode(value: string): Mode {
  if (value !== 'live' && value !== 'sandbox') {
    throw new PlatformError('VALIDATION_FAILED', 'mode must be sandbox or live', { param: 'mode' });
  }
  return value;
}
