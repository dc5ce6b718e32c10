import {
  DISPUTE_EVIDENCE_FIELDS,
  DISPUTE_REASONS,
  DISPUTE_STATUSES,
  requireMerchant,
  requireMode,
  requireSandboxMode,
  type DisputeReason,
  type DisputeStatus,
} from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import { dateOf, oneOf, optionalOneOf } from '../request-fields';
import { disputePayload } from './dispute';
import type { DisputeCloser } from './dispute-closing';
import type { DisputeOpener } from './dispute-opening';
import type { DisputeService } from './disputes';
import type { EvidenceInput } from './evidence';

type Handlers = UnaryHandlers<types.payments.PaymentsServiceHandlers>;

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
        status: optionalOneOf<DisputeStatus>(DISPUTE_STATUSES, req.status, 'status'),
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
          reason: optionalOneOf<DisputeReason>(DISPUTE_REASONS, req.reason, 'reason'),
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
