import { PlatformError, requireInternal } from '@ppay/kernel';
import type { UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import type { ConnectedAccountSnapshot, ConnectedAccountStatusService } from './account-status';

type Handlers = UnaryHandlers<types.kyc.KycServiceHandlers>;

/** At most this many requirements per list, each at most ITEM_MAX characters (payments cuts them too). */
export const DUE_MAX = 50;
const ITEM_MAX = 200;

function text(value: string | undefined, param: string, max: number): string {
  if (!value || value.length > max) {
    throw new PlatformError('VALIDATION_FAILED', `${param} must be 1 to ${max} characters`, { param });
  }
  return value;
}

function list(values: string[] | undefined, param: string): string[] {
  const items = values ?? [];
  if (items.length > DUE_MAX) {
    throw new PlatformError('VALIDATION_FAILED', `${param} holds at most ${DUE_MAX} entries`, { param });
  }
  return items.map((v) => text(v, param, ITEM_MAX));
}

function snapshotOf(req: types.kyc.ConnectedAccountEventRequest__Output): ConnectedAccountSnapshot {
  const occurredAt = new Date(text(req.occurred_at, 'occurred_at', 40));
  if (Number.isNaN(occurredAt.getTime())) {
    throw new PlatformError('VALIDATION_FAILED', 'occurred_at must be an ISO 8601 time', { param: 'occurred_at' });
  }
  return {
    gateway_account_id: text(req.gateway_account_id, 'gateway_account_id', 255),
    event_id: text(req.event_id, 'event_id', 255),
    event_type: text(req.event_type, 'event_type', 100),
    occurred_at: occurredAt,
    charges_enabled: req.charges_enabled,
    payouts_enabled: req.payouts_enabled,
    details_submitted: req.details_submitted,
    currently_due: list(req.currently_due, 'currently_due'),
    past_due: list(req.past_due, 'past_due'),
    eventually_due: list(req.eventually_due, 'eventually_due'),
    disabled_reason: req.disabled_reason ? text(req.disabled_reason, 'disabled_reason', ITEM_MAX) : null,
    deauthorized: req.deauthorized,
  };
}

export function accountStatusHandlers(
  statuses: ConnectedAccountStatusService,
): Pick<Handlers, 'ApplyConnectedAccountEvent'> {
  return {
    /** Internal (payments' processor inbox): a live connected account's event, applied to its case. */
    async ApplyConnectedAccountEvent(req, { caller }) {
      requireInternal(caller);
      const res = await statuses.apply(snapshotOf(req), 'live');
      return res.outcome === 'not_found'
        ? { outcome: res.outcome, submission_id: 0, status: '' }
        : { outcome: res.outcome, submission_id: res.kyc.id, status: res.kyc.status };
    },
  };
}
