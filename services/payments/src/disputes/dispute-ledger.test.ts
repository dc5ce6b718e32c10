import type { DisputeEvent } from '@ppay/kernel';
import { WalletLedger } from '../wallets/wallet-ledger';
import { MemoryLedgerEntries, MemoryWallets, testCredit } from '../wallets/wallet-memory.test-util';
import { disputeLedger } from './dispute-ledger';
import { disputeWorld } from './disputes.test-util';

// The world's NGN 5,000.00 charge credits ₦4,825.00; the dispute fee is ₦2,500.00.
const NET = 482_500;
const FEE = 250_000;

/** A won dispute's two money events, as its outbox holds them. */
async function wonDispute() {
  const w = disputeWorld();
  const chargeId = await w.newCharge();
  await w.settleLedger();
  const d = await w.opener.open({ merchant_id: 1000, mode: 'sandbox', charge_id: chargeId, source: 'sandbox_api' });
  await w.service.saveEvidence(1000, 'sandbox', d.dispute_id, { evidence: { customer_name: 'Ada' }, submit: true });
  await w.closer.decide(1000, 'sandbox', d.dispute_id, 'won');
  const event = (subject: string) => {
    const e = w.disputes.events.find((x) => x.subject === subject)!;
    return { data: e.data as DisputeEvent, id: e.event_id };
  };
  return {
    chargeId,
    withdrawn: event('payments.dispute.funds_withdrawn'),
    reinstated: event('payments.dispute.funds_reinstated'),
  };
}

/** The merchant's wallet as each event is handled, and its entries in the order the wallet applied them. */
async function play(order: 'withdrawn first' | 'reinstated first') {
  const { chargeId, withdrawn, reinstated } = await wonDispute();
  const entries = new MemoryLedgerEntries();
  const ledger = new WalletLedger(entries, new MemoryWallets());
  await ledger.append([testCredit('pay', NET, { charge_id: chargeId })]);
  const moves = disputeLedger(ledger);
  const steps = [
    () => moves.withdrawals.record(withdrawn.data, 'sandbox', withdrawn.id),
    () => moves.reinstatements.record(reinstated.data, 'sandbox', reinstated.id),
  ];
  if (order === 'reinstated first') steps.reverse();
  const available: number[] = [];
  for (const step of steps) {
    await step();
    available.push((await ledger.balances(1000, 'sandbox'))[0]!.available.amount);
  }
  const applied = [...entries.docs.values()]
    .sort((a, b) => a.wallet_seq! - b.wallet_seq!)
    .map((e) => `${e.kind} ${e.reason} ${e.amount.amount}`);
  return { available, applied };
}

describe('dispute ledger entries', () => {
  it('moves each wallet through the same entries in the same order whichever event is handled first', async () => {
    const expected = [
      `credit payment ${NET}`,
      `debit dispute_withdrawal ${NET}`,
      `debit dispute_fee ${FEE}`,
      `credit dispute_reinstatement ${NET}`,
      `credit dispute_reinstatement ${FEE}`,
    ];
    const usual = await play('withdrawn first');
    expect(usual).toEqual({ available: [-FEE, NET], applied: expected });
    const reversed = await play('reinstated first');
    // Never more than the wallet had before the dispute: the reinstatement brings the withdrawal's
    // debits along, and the late withdrawal event finds them written.
    expect(reversed).toEqual({ available: [NET, NET], applied: expected });
  });
});
