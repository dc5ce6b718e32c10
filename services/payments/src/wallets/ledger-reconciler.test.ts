import { ChargeService } from '../charges/charges';
import { DEFAULT_FEE_SCHEDULE } from '../charges/fees';
import { LedgerReconciler, type Repair } from './ledger-reconciler';
import {
  FakeFx,
  FakeMerchants,
  FakeSplits,
  MemoryCharges,
  MemoryLedger,
  MemorySessions,
} from '../memory-ports.test-util';
import { FakeProcessors } from '../processors/processors.test-util';
import { OutcomeService } from '../charges/outcomes';
import { WalletCredits } from './wallet-credits';

const NGN = {
  amount: 500_000,
  currency: 'NGN',
  total_amount: 500_000,
  total_currency: 'NGN',
  customer: { email: 'c@x.co' },
};

describe('LedgerReconciler: the safety net under the payment.succeeded consumer', () => {
  async function setup() {
    let clock = Date.parse('2026-11-01T10:00:00Z');
    const now = () => new Date(clock);
    const merchants = new FakeMerchants();
    merchants.add({ merchant_id: 1000 });
    const charges = new MemoryCharges();
    const sessions = new MemorySessions();
    const ledger = new MemoryLedger();
    const splits = new FakeSplits();
    const payments = new ChargeService(
      { merchants, fx: new FakeFx(), splits, processors: new FakeProcessors(), charges },
      { feeSchedule: DEFAULT_FEE_SCHEDULE, tolerance: '0.01' },
      now,
    );
    const credits = new WalletCredits(ledger, splits, now);
    const reconciler = new LedgerReconciler({ charges, sessions, ledger, credits }, { graceMs: 60_000 }, now);
    const succeeded = async () => {
      const out = await payments.create(1000, 'sandbox', NGN);
      if (out.kind !== 'charge') throw new Error('expected a charge');
      return new OutcomeService(charges, now).simulate(1000, 'sandbox', out.charge.charge_id, 'succeed');
    };
    return { reconciler, credits, ledger, charges, succeeded, advance: (ms: number) => (clock += ms) };
  }

  it('credits a succeeded charge the ledger never saw, once, and counts the repair', async () => {
    const { reconciler, ledger, succeeded, advance } = await setup();
    const lost = await succeeded(); // its event never reached the consumer
    const repairs: Repair[] = [];
    expect(await reconciler.run((r) => repairs.push(r))).toBe(0); // still inside the consumer's head start
    advance(61_000);
    expect(await reconciler.run((r) => repairs.push(r))).toBe(1);
    expect(repairs).toEqual([expect.objectContaining({ source: 'charge', charge_id: lost.charge_id })]);
    expect([...ledger.entries.values()].map((e) => [e.merchant_id, e.amount.amount])).toEqual([[1000, 482_500]]);
    // Checked once: a second run does nothing, and the late original event is a duplicate.
    expect(await reconciler.run()).toBe(0);
    expect(ledger.entries.size).toBe(1);
  });

  it('leaves a charge the consumer already credited alone', async () => {
    const { reconciler, credits, ledger, charges, succeeded, advance } = await setup();
    const paid = await succeeded();
    const event = charges.events[0]!;
    await credits.record(event.data as never, 'sandbox', event.event_id);
    advance(61_000);
    expect(await reconciler.run()).toBe(0);
    expect(ledger.entries.size).toBe(1);
    expect(charges.ledgerChecked.has(paid.charge_id)).toBe(true);
  });
});
