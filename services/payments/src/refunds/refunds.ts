import {
  addMoney,
  normaliseCurrency,
  outboxEvent,
  PlatformError,
  requestFingerprint,
  SUBJECTS,
  type Mode,
  type Money,
} from '@ppay/kernel';
import type { ChargeRecord } from '../charges/charge';
import type { CallOptions } from '../charges/charges';
import { withinDeadline } from '../charges/deadline-race';
import { capturedAmount, refundableAmount, refundedEvent } from './charge-refunds';
import { newRefund, type RefundRecord } from './refund';
import type { ChargeRepository } from '../ports';
import type { ProcessorRegistry, RefundAnswer } from '../processors/ports';

/** A refund request as the gateway passes it (spec: not shown; docs/decisions.md, Refunds). */
export interface RefundRequest {
  /** In the charge currency; an empty currency is the charge's (partners send none). Absent: everything left. */
  amount?: Money;
  reason?: string;
}

export interface RefundOutcome {
  charge: ChargeRecord;
  refund: RefundRecord;
  replayed: boolean;
}

export interface RefundServiceOptions {
  /** Compare-and-set rounds a request may lose to concurrent refunds of the same charge before a 409. */
  maxRounds?: number;
  /** A refund pending this long (its request crashed or timed out) is resumed by the sweep. */
  staleAfterMs?: number;
  /** Told of every refund this service settled (metrics). */
  onSettled?: (refund: RefundRecord) => void;
}

const MAX_REASON_LENGTH = 500;
/** Refunds a charge may hold, failed ones included (the charge document stays bounded). */
export const MAX_REFUNDS_PER_CHARGE = 100;

function validate(request: RefundRequest): { amount: Money | null; reason: string | null } {
  const amount = request.amount ?? null;
  if (amount !== null && (!Number.isSafeInteger(amount.amount) || amount.amount <= 0)) {
    throw new PlatformError('VALIDATION_FAILED', 'amount must be a positive integer in minor units', {
      param: 'amount',
    });
  }
  const reason = request.reason?.trim() || null;
  if (reason !== null && reason.length > MAX_REASON_LENGTH) {
    throw new PlatformError('VALIDATION_FAILED', `reason must be at most ${MAX_REASON_LENGTH} characters`, {
      param: 'reason',
    });
  }
  return { amount, reason };
}

/** A refund is in the charge's currency: one the caller names must be it. */
function assertChargeCurrency(amount: Money | null, captured: Money): void {
  if (!amount?.currency || normaliseCurrency(amount.currency) === captured.currency) return;
  throw new PlatformError('VALIDATION_FAILED', `amount must be in the charge currency (${captured.currency})`, {
    param: 'amount',
    detail: `got ${amount.currency}`,
  });
}

/**
 * Refunds of a charge (beyond the spec, implied by payment.refunded). Refunds live inside the charge
 * document and every change of them is one compare-and-set on the charge's `refund_version`, so the
 * cap (succeeded + pending ≤ captured) holds under any concurrency without transactions:
 *
 * 1. reserve: a `pending` refund is added if the version has not moved (else re-read and re-judge);
 * 2. the processor is asked, with the refund id as its idempotency key;
 * 3. settle: the refund becomes `succeeded` (amount_refunded grows, payment.refunded goes into the
 *    charge's outbox in the same write) or `failed` (its amount is free again). A live processor may
 *    answer `pending` instead: the refund keeps its reservation and records the processor's id, and
 *    the processor's event settles it later through the same write (`recordAnswer`).
 *
 * A refund left pending (timeout, crash) is resumed by a retry with the same Idempotency-Key or by the
 * sweep; asking the processor again is harmless. The ledger debits follow from payment.refunded.
 */
export class RefundService {
  constructor(
    private readonly deps: { charges: ChargeRepository; processors: ProcessorRegistry },
    private readonly options: RefundServiceOptions = {},
    private readonly now: () => Date = () => new Date(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  async create(
    merchantId: number,
    mode: Mode,
    chargeId: string,
    request: RefundRequest,
    call: CallOptions = {},
  ): Promise<RefundOutcome> {
    const { amount, reason } = validate(request);
    const key = call.idempotencyKey?.trim() || null;
    // The amount as a number, as it has always been fingerprinted: a retry after an upgrade still matches.
    const fingerprint = requestFingerprint({ charge_id: chargeId, amount: amount?.amount ?? null, reason });
    const rounds = this.options.maxRounds ?? 50;
    for (let round = 0; round < rounds; round++) {
      const charge = await this.find(merchantId, mode, chargeId);
      assertChargeCurrency(amount, capturedAmount(charge));
      const existing = key ? charge.refunds.find((r) => r.idempotency_key === key) : undefined;
      if (existing) {
        if (existing.request_fingerprint !== fingerprint) {
          throw new PlatformError('IDEMPOTENCY_KEY_REUSED', undefined, { param: 'Idempotency-Key' });
        }
        if (existing.status !== 'pending') return { charge, refund: existing, replayed: true };
        return { ...(await this.drive(charge, existing, true, call.deadline)), replayed: true };
      }
      if (charge.status !== 'succeeded') {
        throw new PlatformError('CHARGE_NOT_REFUNDABLE', undefined, {
          param: 'charge_id',
          detail: `the charge is ${charge.status}`,
        });
      }
      if (charge.dispute?.status === 'open') {
        throw new PlatformError('CHARGE_DISPUTED', undefined, {
          param: 'charge_id',
          detail: `dispute ${charge.dispute.dispute_id} is open; a won dispute frees its amount again`,
        });
      }
      // Failed refunds count too: every refund stays in the charge document, which must stay bounded.
      if (charge.refunds.length >= MAX_REFUNDS_PER_CHARGE) {
        throw new PlatformError('REFUND_LIMIT_REACHED', undefined, {
          param: 'charge_id',
          detail: `a charge holds at most ${MAX_REFUNDS_PER_CHARGE} refunds, failed ones included`,
        });
      }
      const captured = capturedAmount(charge);
      const left = refundableAmount(charge);
      if (left.amount <= 0 && charge.refunded)
        throw new PlatformError('CHARGE_ALREADY_REFUNDED', undefined, { param: 'charge_id' });
      const wanted = amount ? { ...captured, amount: amount.amount } : left;
      if (wanted.amount > left.amount || wanted.amount <= 0) {
        throw new PlatformError('REFUND_EXCEEDS_CHARGE', undefined, {
          param: 'amount',
          detail:
            `at most ${Math.max(left.amount, 0)} ${captured.currency} can be refunded now (captured ${captured.amount}` +
            (charge.amount_disputed.amount > 0 ? `, disputed ${charge.amount_disputed.amount})` : ')'),
        });
      }
      // A processor that cannot refund yet is refused before anything is reserved on the charge.
      this.deps.processors.adapterFor(charge.processor_group, charge.mode, 'refunds');
      const refund = newRefund(
        { idempotency_key: key, request_fingerprint: fingerprint, amount: wanted, reason },
        this.now(),
      );
      const reserved = await this.deps.charges.writeRefunds(
        charge.charge_id,
        charge.refund_version,
        { refunds: [...charge.refunds, refund], amount_refunded: charge.amount_refunded, refunded: charge.refunded },
        null,
        this.now(),
      );
      if (!reserved) {
        // Another refund of this charge won the write: judge again on the fresh charge.
        await this.sleep(Math.floor(Math.random() * 10) + round);
        continue;
      }
      return { ...(await this.drive(reserved, refund, false, call.deadline)), replayed: false };
    }
    throw new PlatformError('CONFLICT', 'This charge is being refunded by concurrent requests; retry', {
      param: 'charge_id',
    });
  }

  async list(merchantId: number, mode: Mode, chargeId: string): Promise<ChargeRecord> {
    return this.find(merchantId, mode, chargeId);
  }

  /** The sweep: refunds left pending by a crash or a timeout are asked again and settled. */
  async resumeStale(limit = 50): Promise<number> {
    const staleBefore = new Date(this.now().getTime() - (this.options.staleAfterMs ?? 60_000));
    let settled = 0;
    for (const charge of await this.deps.charges.withStalePendingRefunds(staleBefore, limit)) {
      for (const refund of charge.refunds) {
        if (refund.status !== 'pending' || refund.updated_at > staleBefore) continue;
        const fresh = await this.find(charge.merchant_id, charge.mode, charge.charge_id);
        const result = await this.drive(fresh, refund, true).catch(() => null);
        if (result && result.refund.status !== 'pending') settled++;
      }
    }
    return settled;
  }

  private async find(merchantId: number, mode: Mode, chargeId: string): Promise<ChargeRecord> {
    const charge = await this.deps.charges.findForMerchant(merchantId, mode, chargeId);
    if (!charge) throw new PlatformError('CHARGE_NOT_FOUND', undefined, { param: 'charge_id' });
    return charge;
  }

  /**
   * The processor's word on a refund (its event): settles a pending refund exactly as an answer to the
   * request would, or records the processor's id of one still pending. `changed` is false when the
   * refund already had that state (a repeat); a final refund is never changed.
   */
  async recordAnswer(
    charge: ChargeRecord,
    refundId: string,
    answer: RefundAnswer,
  ): Promise<{ charge: ChargeRecord; refund: RefundRecord; changed: boolean }> {
    return this.settle(charge, refundId, answer);
  }

  /** Asks the processor about a pending refund and records its answer; no answer leaves it pending. */
  private async drive(
    charge: ChargeRecord,
    refund: RefundRecord,
    askedBefore: boolean,
    deadline?: Date,
  ): Promise<{ charge: ChargeRecord; refund: RefundRecord }> {
    const adapter = this.deps.processors.adapterFor(charge.processor_group, charge.mode, 'refunds');
    const answer = await withinDeadline(
      adapter.refund({
        refund_id: refund.refund_id,
        charge_id: charge.charge_id,
        merchant_id: charge.merchant_id,
        mode: charge.mode,
        processor_reference: charge.processor_reference,
        amount: refund.amount,
        reason: refund.reason,
        refund_reference: refund.processor_reference,
        asked_before: askedBefore,
      }),
      deadline,
      this.now,
    );
    if (answer.timedOut) {
      throw new PlatformError('UPSTREAM_TIMEOUT', 'The payment processor has not answered the refund yet', {
        detail: 'the refund is pending: retry with the same Idempotency-Key to get its outcome',
      });
    }
    // SERVICE_UNAVAILABLE or an unknown outcome: the refund stays pending (it may have happened).
    if ('error' in answer) throw answer.error;
    const { charge: after, refund: settled } = await this.settle(charge, refund.refund_id, answer.value);
    return { charge: after, refund: settled };
  }

  private async settle(
    charge: ChargeRecord,
    refundId: string,
    answer: RefundAnswer,
  ): Promise<{ charge: ChargeRecord; refund: RefundRecord; changed: boolean }> {
    let current = charge;
    for (let round = 0; round < (this.options.maxRounds ?? 50); round++) {
      const pending = current.refunds.find((r) => r.refund_id === refundId);
      if (!pending) throw new PlatformError('INTERNAL', `refund ${refundId} vanished from its charge`);
      if (pending.status !== 'pending') return { charge: current, refund: pending, changed: false };
      const at = this.now();
      const succeeded = answer.status === 'succeeded';
      // Still pending at the processor: its id is recorded and updated_at moves, so the sweep asks
      // again only after staleAfterMs; the reservation stays and nothing is announced.
      const settled: RefundRecord =
        answer.status === 'pending'
          ? { ...pending, processor_reference: answer.processor_reference, updated_at: at }
          : answer.status === 'succeeded'
            ? {
                ...pending,
                status: 'succeeded',
                refunded_before: current.amount_refunded,
                processor_reference: answer.processor_reference,
                updated_at: at,
              }
            : { ...pending, status: 'failed', failure_reason: answer.failure_reason, updated_at: at };
      const amountRefunded = succeeded ? addMoney(current.amount_refunded, pending.amount) : current.amount_refunded;
      const after: ChargeRecord = {
        ...current,
        refunds: current.refunds.map((r) => (r.refund_id === refundId ? settled : r)),
        amount_refunded: amountRefunded,
        refunded: amountRefunded.amount >= capturedAmount(current).amount,
      };
      const event = succeeded
        ? outboxEvent(SUBJECTS.paymentRefunded, refundedEvent(after, settled, at), {
            merchantId: current.merchant_id,
            mode: current.mode,
          })
        : null;
      const written = await this.deps.charges.writeRefunds(
        current.charge_id,
        current.refund_version,
        { refunds: after.refunds, amount_refunded: after.amount_refunded, refunded: after.refunded },
        event,
        at,
      );
      if (written) {
        if (settled.status !== 'pending') this.options.onSettled?.(settled);
        return { charge: written, refund: settled, changed: true };
      }
      current = await this.find(current.merchant_id, current.mode, current.charge_id);
    }
    throw new PlatformError('CONFLICT', 'This charge is being refunded by concurrent requests; retry', {
      param: 'charge_id',
    });
  }
}
