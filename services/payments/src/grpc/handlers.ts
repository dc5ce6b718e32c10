import type { UnaryHandlers } from '@ppay/kernel';
import type { types } from '@ppay/proto';

/**
 * The contract is complete in proto/; operations whose issue has not landed are absent here and
 * answer UNIMPLEMENTED, which the gateway reports as HTTP 501.
 */
export function serviceHandlers(): UnaryHandlers<types.payments.PaymentsServiceHandlers> {
  return {};
}
