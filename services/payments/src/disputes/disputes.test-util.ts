import type { DisputeEvent, PaymentOutcome, PaymentRefunded } from '@ppay/kernel';
import { NGN_CHARGE } from '../charges/charge.test-util';
import { ChargeService, type ChargeRequest } from '../charges/charges';
import { DEFAULT_FEE_SCHEDULE } from '../charges/fees';
import { OutcomeService } from '../charges/outcomes';
import { FakeFx, FakeMerchants, FakeSplits, MemoryCharges, MemoryLedger } from '../memory-ports.test-util';
import { FakeProcessors } from '../processors/processors.test-util';
import { RefundLedger } from '../refunds/refund-ledger';
import { RefundService } from '../refunds/refunds';
import { WalletCredits } from '../wallets/wallet-credits';
import { DisputeCloser } from './dispute-closing';
import { disputeLedger } from './dispute-ledger';
import { FakeDisputeProcessors, MemoryDisputes } from './dispute-memory.test-util';
import { DisputeOpener } from './dispute-opening';
import { DisputeService } from './disputes';

export const DAY = 24 * 60 * 60 * 1000;
export const FEES = { NGN: 250_000, USD: 1_500 };

/**
 * A payments world for dispute tests, in memory: charges made and succeeded through their services,
 * their credits, refunds, and the three dispute services, on one clock. `settleLedger` plays the
 * consumers (payment.succeeded credits, refund debits, dispute withdrawals and reinstatements) over the events so far.
 */
export function disputeWorld() {
  const merchants = new FakeMerchants();
  for (const id of [1000, 2000, 3000]) merchants.add({ merchant_id: id });
  const charges = new MemoryCharges();
  const ledger = new MemoryLedger();
  const splits = new FakeSplits();
  const processors = new FakeProcessors();
  let clock = Date.parse('2026-11-01T10:00:00Z');
  const now = () => new Date(clock);
  const sleep = async (ms: number) => {
    clock += ms;
  };
  const chargeService = new ChargeService(
    { merchants, fx: new FakeFx(), splits, processors, charges },
    { feeSchedule: DEFAULT_FEE_SCHEDULE, tolerance: '0.01' },
    now,
    sleep,
  );
  const outcomes = new OutcomeService(charges, now);
  const credits = new WalletCredits(ledger, splits, now);
  const refunds = new RefundService({ charges, processors }, { staleAfterMs: 60_000 }, now, sleep);
  const disputes = new MemoryDisputes();
  const disputeProcessors = new FakeDisputeProcessors();
  const opened: string[] = [];
  const closed: string[] = [];
  const opener = new DisputeOpener(
    { charges, disputes, credits },
    { fees: FEES, responseWindowMs: 7 * DAY, onOpened: (d) => opened.push(d.dispute_id) },
    now,
    sleep,
  );
  const closer = new DisputeCloser(
    { charges, disputes, processors: disputeProcessors },
    { onClosed: (d, by) => closed.push(`${d.dispute_id}:${d.status}:${by}`) },
    now,
  );
  const service = new DisputeService({ disputes, processors: disputeProcessors }, {}, now);
  const moves = disputeLedger(ledger, now);
  const refundLedger = new RefundLedger({ charges, ledger, credits }, now);

  const newCharge = async (request: ChargeRequest = NGN_CHARGE, merchantId = 1000) => {
    const out = await chargeService.create(merchantId, 'sandbox', request);
    if (out.kind !== 'charge') throw new Error('expected a charge');
    return (await outcomes.simulate(merchantId, 'sandbox', out.charge.charge_id, 'succeed')).charge_id;
  };

  const handled = new Set<string>();
  /** The consumers, over every event not handled yet (each once, as JetStream would deliver them). */
  const settleLedger = async () => {
    for (const e of [...charges.events, ...disputes.events]) {
      if (handled.has(e.event_id)) continue;
      handled.add(e.event_id);
      if (e.subject === 'payments.payment.succeeded')
        await credits.record(e.data as PaymentOutcome, 'sandbox', e.event_id);
      if (e.subject === 'payments.payment.refunded')
        await refundLedger.record(e.data as PaymentRefunded, 'sandbox', e.event_id);
      if (e.subject === 'payments.dispute.funds_withdrawn')
        await moves.withdrawals.record(e.data as DisputeEvent, 'sandbox', e.event_id);
      if (e.subject === 'payments.dispute.funds_reinstated')
        await moves.reinstatements.record(e.data as DisputeEvent, 'sandbox', e.event_id);
    }
  };

  /** A merchant's wallet balance in one currency: its credits minus its debits. */
  const balance = (merchantId: number, currency = 'NGN') =>
    [...ledger.entries.values()]
      .filter((e) => e.merchant_id === merchantId && e.amount.currency === currency)
      .reduce((sum, e) => sum + (e.kind === 'credit' ? e.amount.amount : -e.amount.amount), 0);

  const subjects = () => disputes.events.map((e) => e.subject.replace('payments.dispute.', ''));

  return {
    charges,
    ledger,
    splits,
    credits,
    refunds,
    processors,
    disputes,
    disputeProcessors,
    opener,
    closer,
    service,
    newCharge,
    settleLedger,
    balance,
    subjects,
    opened,
    closed,
    advance: (ms: number) => (clock += ms),
    now,
  };
}
