import {
  DISPUTE_EVIDENCE_FIELDS,
  DISPUTE_REASONS,
  DISPUTE_STATUSES,
  PlatformError,
  requireMerchant,
  requireMode,
  requireSandboxMode,
  type DisputeReason,
  type DisputeStatus,
} from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { disputePayload } from './dispute';
import type { DisputeCloser } from './dispute-closing';
import type { DisputeOpener } from './dispute-opening';
import type { DisputeService } from './disputes';
import type { EvidenceInput } from './evidence';

type Handlers = UnaryHandlers<types.payments.PaymentsServiceHandlers>;

function oneOf<T extends string>(values: readonly T[], value: string, param: string): T {
  if ((values as readonly string[]).includes(value)) return value as T;
  throw new PlatformError('VALIDATION_FAILED', `${param} must be one of ${values.join(', ')}`, { param });
}

function dateOf(value: string, param: string): Date | undefined {
  if (!value) return undefined;
  const at = value.length <= 40 ? new Date(value) : new Date(NaN);
  if (Number.isNaN(at.getTime()))
    throw new PlatformError('VALIDATION_FAILED', `${param} must be an ISO 8601 time`, { param });
  return at;
}

/** The evidence a request sets: the fields present, and null for those it clears. */
function evidenceOf(req: types.payments.SubmitDisputeEvidenceRequest__Output): EvidenceInput {
  const input: EvidenceInput = {};
  for (const field of DISPUTE_EVIDENCE_FIELDS) {
    const value = req.evidence?.[field];
    if (value !== undefined && value !== null) input[field] = value;
  }
  for (const field of req.cleared) input[oneOf(DISPUTE_EVIDENCE_FIELDS, field, 'evidence')] = null;
  return input;
}

const wire = (d: Parameters<typeof disputePayload>[0]) => toWire(disputePayload(d));

/** Disputes and their sandbox helpers: decode, call the use case, encode. */
export function disputeHandlers(
  disputes: DisputeService,
  opener: DisputeOpener,
  closer: DisputeCloser,
): Partial<Handlers> {
  return {
    async ListDisputes(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const page = await disputes.list(merchantId, requireMode(caller), {
        status: req.status ? oneOf<DisputeStatus>(DISPUTE_STATUSES, req.status, 'status') : undefined,
        charge_id: req.charge_id || undefined,
        from: dateOf(req.from, 'from'),
        to: dateOf(req.to, 'to'),
        limit: req.limit || undefined,
        cursor: req.cursor || undefined,
      });
      return toWire({ ...page, disputes: page.disputes.map(disputePayload) });
    },
    async GetDispute(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return wire(await disputes.get(merchantId, requireMode(caller), req.dispute_id));
    },
    async SubmitDisputeEvidence(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return wire(
        await disputes.saveEvidence(merchantId, requireMode(caller), req.dispute_id, {
          evidence: evidenceOf(req),
          submit: req.submit,
        }),
      );
    },
    async AcceptDispute(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return wire(await closer.accept(merchantId, requireMode(caller), req.dispute_id));
    },
    async OpenSandboxDispute(req, { caller }) {
      const mode = requireSandboxMode(caller);
      const { merchantId } = requireMerchant(caller);
      return wire(
        await opener.open({
          merchant_id: merchantId,
          mode,
          charge_id: req.charge_id,
          reason: req.reason ? oneOf<DisputeReason>(DISPUTE_REASONS, req.reason, 'reason') : undefined,
          amount: req.amount ?? undefined,
          source: 'sandbox_api',
        }),
      );
    },
    async DecideSandboxDispute(req, { caller }) {
      const mode = requireSandboxMode(caller);
      const { merchantId } = requireMerchant(caller);
      const outcome = oneOf(['won', 'lost'] as const, req.outcome, 'outcome');
      return wire(await closer.decide(merchantId, mode, req.dispute_id, outcome));
    },
    async ExpireSandboxDispute(req, { caller }) {
      const mode = requireSandboxMode(caller);
      const { merchantId } = requireMerchant(caller);
      return wire(await closer.expireNow(merchantId, mode, req.dispute_id));
    },
  };
}
