import Stripe from 'stripe';
import type { Mode } from '@ppay/kernel';
import { PayoutService } from '../../payouts/payouts';
import type { PayoutRequestInput } from '../../payouts/payout';
import { transferKeyOf } from '../../payouts/payout-transfer';
import type { TransferOutcome } from '../../payouts/payout-transfers';
import { PayoutTransferEventApplier } from '../../payouts/transfer-events';
import { MemoryPayoutDestinations, MemoryPayouts } from '../../payouts/payout-memory.test-util';
import { WalletLedger } from '../../wallets/wallet-ledger';
import { MemoryLedgerEntries, MemoryWallets, testCredit } from '../../wallets/wallet-memory.test-util';
import { ProcessorEventInbox } from '../processor-events';
import { appliersOf, MemoryProcessorEvents } from '../processor-events.test-util';
import { StripeEventVerifier } from './stripe-events.adapter';
import { fakeStripeTransfers } from './stripe-transfers.test-util';

/**
 * Live connected-account payouts as Stripe Transfers (issue 34 item 5, docs/decisions.md C23–C30): the
 * real library against an in-process Stripe that keeps transfers and idempotency keys, events signed by
 * Stripe's library and taken through the verifier and the inbox, payouts and wallets in memory.
 */
const SUB = 2000;
const OPERATOR = 1000;
const ACCT = 'acct_1SubMerchant';
const WEBHOOK_SECRET = 'whsec_unit_platform00';
const usd = (amount: number) => ({ amount, currency: 'USD' });

let stripe: Awaited<ReturnType<typeof fakeStripeTransfers>>;
beforeEach(async () => (stripe = await fakeStripeTransfers()));
afterEach(() => stripe.close());

function setup(o: { configured?: boolean; region?: 'US' | 'EU' | null } = {}) {
  let now = new Date('2026-12-01T10:00:00Z');
  const wallets = new MemoryWallets();
  const entries = new MemoryLedgerEntries();
  const ledger = new WalletLedger(entries, wallets, undefined, async () => undefined);
  const payouts = new MemoryPayouts();
  const destinations = new MemoryPayoutDestinations();
  const region = o.region === undefined ? 'US' : o.region;
  destinations.set(SUB, 'live', { found: true, kyc_status: 'approved', fingerprint: 'fp_1', gateway_region: region });
  const outcomes: TransferOutcome[] = [];
  const calls: string[] = [];
  const processor = stripe.processor({
    call: (op, outcome) => calls.push(`${op}:${outcome}`),
    authFailure: () => calls.push('auth'),
  });
  const service = new PayoutService(
    { payouts, wallets, ledger, destinations, transfers: o.configured === false ? null : processor },
    () => now,
    { transferStaleAfterMs: 30_000, onTransfer: (x) => outcomes.push(x) },
  );
  const events = new MemoryProcessorEvents();
  const payout_transfer = new PayoutTransferEventApplier({ payouts, transfers: service.transfers });
  const inbox = new ProcessorEventInbox(
    { events, appliers: appliersOf({ payout_transfer }) },
    { unmatchedAfterMs: 60_000, retryMs: 1_000, now: () => now },
  );
  const verifier = new StripeEventVerifier(Stripe.webhooks, [WEBHOOK_SECRET]);
  /** A Stripe event signed as Stripe signs it, verified, stored and applied: its inbox status. */
  const deliver = async (payload: string) => {
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const verified = verifier.verify(Buffer.from(payload), signature);
    if (verified.kind !== 'event') return verified.why;
    await inbox.receive(verified.event);
    await inbox.applyDue();
    return events.docs.get(`stripe:${verified.event.event_id}`)!.status;
  };
  const wallet = (mode: Mode = 'live') => wallets.docs.get(`${SUB}:${mode}:USD`)!;
  /** A paid-out merchant's approved payout of `amount` (funded with 100.00 first). */
  const approved = async (
    reference: string,
    amount = 25_00,
    mode: Mode = 'live',
    input: Partial<PayoutRequestInput> = {},
  ) => {
    if (!wallets.docs.get(`${SUB}:${mode}:USD`)) {
      await ledger.append([testCredit(`fund-${mode}`, 100_00, { merchant_id: SUB, mode, amount: usd(100_00) })]);
    }
    await service.initiate(SUB, mode, { ...connectedRequest(reference, amount), ...input });
    return service.approve(SUB, mode, reference, OPERATOR);
  };
  const subjects = () => payouts.events.map((e) => e.subject.replace('payments.settlement.', ''));
  return {
    service,
    payouts,
    destinations,
    entries,
    wallet,
    approved,
    deliver,
    outcomes,
    calls,
    subjects,
    payout: (ref: string, mode: Mode = 'live') => payouts.docs.get(`${SUB}:${mode}:${ref}`)!,
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
  };
}

const connectedRequest = (reference: string, amount: number): PayoutRequestInput => ({
  amount: usd(amount),
  reference,
  marketplace_id: OPERATOR,
  payment_gateway: 'card_gateway',
  payout_method: 'connected_account',
  destination: {
    kind: 'connected_account',
    bank_name: null,
    institution_id: null,
    account_number_masked: null,
    account_name: null,
    gateway_account_id: ACCT,
    fingerprint: 'fp_1',
  },
});

/** A transfer event as Stripe sends it for the platform (no `account`): the Transfer as of the event. */
function transferEvent(id: string, type: string, transfer: Record<string, unknown>) {
  return JSON.stringify({
    id,
    object: 'event',
    type,
    created: 1_764_583_200,
    livemode: false,
    data: { object: transfer },
  });
}

describe('a live connected-account payout is paid by a Stripe Transfer (C23, C24)', () => {
  it('settled as paid: the transfer is begun, made once with our key and metadata, and pays the payout', async () => {
    const t = setup();
    await t.approved('po-1');
    const paid = await t.service.settleFor({ auth: 'admin', requestId: 'req_1' }, SUB, 'po-1', 'paid', null);
    expect(paid).toMatchObject({ withdrawal_status: 'paid', reservation: 'settled', transfer_state: 'created' });
    expect(paid.transfer).toMatchObject({ account: ACCT, region: 'US', transfer_reference: 'tr_fake1' });
    expect(stripe.creates).toHaveLength(1);
    const [create] = stripe.creates;
    expect(create!.key).toBe(transferKeyOf(paid));
    expect(create!.key).toBe(`ppay_payout_${SUB}:live:po-1_transfer`);
    expect(create!.account).toBeUndefined();
    expect(create!.secret).toBe(stripe.usSecret);
    expect(create!.form).toMatchObject({
      amount: '2500',
      currency: 'usd',
      destination: ACCT,
      transfer_group: create!.key,
      'metadata[payout_request_id]': String(paid.payout_request_id),
      'metadata[payout_reference]': 'po-1',
      'metadata[merchant_id]': String(SUB),
      'metadata[mode]': 'live',
    });
    expect(t.wallet()).toMatchObject({ available: usd(75_00), reserved: usd(0), total_debits: usd(25_00) });
    expect(t.subjects()).toEqual(['requested', 'approved', 'paid']);
    expect(t.calls).toEqual(['transfer_create:ok']);
    expect(t.outcomes).toEqual(['created']);

    // Its transfer.created, once and again: nothing moves twice; a second settlement is refused.
    const event = transferEvent('evt_tr_1', 'transfer.created', stripe.transfers[0]!);
    expect(await t.deliver(event)).toBe('duplicate');
    expect(await t.deliver(transferEvent('evt_tr_1b', 'transfer.created', stripe.transfers[0]!))).toBe('duplicate');
    await expect(t.service.settle(SUB, 'live', 'po-1', 'paid')).rejects.toMatchObject({
      code: 'PAYOUT_NOT_SETTLEABLE',
    });
    expect(stripe.creates).toHaveLength(1);
    expect(t.subjects()).toEqual(['requested', 'approved', 'paid']);
    expect(t.wallet()).toMatchObject({ total_debits: usd(25_00) });
  });

  it('refused by Stripe (the platform balance short): failed with the reason, the reservation released', async () => {
    const t = setup();
    await t.approved('po-1');
    stripe.next.push('refuse');
    const failed = await t.service.settle(SUB, 'live', 'po-1', 'paid');
    expect(failed).toMatchObject({
      withdrawal_status: 'failed',
      reservation: 'released',
      transfer_state: 'refused',
      failure_reason: 'The card gateway refused the transfer (balance_insufficient)',
    });
    expect(t.wallet()).toMatchObject({ available: usd(100_00), reserved: usd(0), total_debits: usd(0) });
    expect(t.subjects()).toEqual(['requested', 'approved', 'failed']);
    expect(t.calls).toEqual(['transfer_create:refused']);
    expect(t.outcomes).toEqual(['refused']);
  });
});

describe('an unknown outcome is asked again with the same key (C25)', () => {
  it('a timeout after Stripe made it: 504, the payout stays begun, the sweep finds the one transfer', async () => {
    const t = setup();
    await t.approved('po-1');
    stripe.next.push('create_and_hang');
    await expect(t.service.settle(SUB, 'live', 'po-1', 'paid')).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    expect(t.payout('po-1')).toMatchObject({ withdrawal_status: 'payout_pending', transfer_state: 'begun' });
    expect(t.wallet()).toMatchObject({ reserved: usd(25_00), total_debits: usd(0) });
    // Only its transfer's outcome settles it now: the admin cannot fail it meanwhile.
    await expect(t.service.settle(SUB, 'live', 'po-1', 'failed', 'x')).rejects.toMatchObject({
      code: 'PAYOUT_NOT_SETTLEABLE',
    });
    // Not while the settlement's own call may still run; then found by its group, never made again.
    expect(await t.service.finishUnfinished()).toBe(0);
    t.advance(31_000);
    expect(await t.service.finishUnfinished()).toBe(1);
    expect(t.payout('po-1')).toMatchObject({ withdrawal_status: 'paid', reservation: 'settled' });
    expect(stripe.transfers).toHaveLength(1);
    expect(stripe.creates).toHaveLength(1);
    expect(t.calls).toEqual(['transfer_create:timeout', 'transfer_list:ok']);
    expect(t.outcomes).toEqual(['unknown', 'created']);
    expect(t.subjects()).toEqual(['requested', 'approved', 'paid']);
  });

  it('unavailable (503) then a retry by the sweep: the same key, exactly one transfer', async () => {
    const t = setup();
    await t.approved('po-1');
    stripe.next.push('unavailable', 'hang');
    await expect(t.service.settle(SUB, 'live', 'po-1', 'paid')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    t.advance(31_000);
    // Still no answer on the sweep's first try: it stays begun (the next pass asks again).
    await t.service.finishUnfinished();
    expect(t.payout('po-1').transfer_state).toBe('begun');
    t.advance(31_000);
    await t.service.finishUnfinished();
    expect(t.payout('po-1')).toMatchObject({ withdrawal_status: 'paid', transfer_state: 'created' });
    expect(new Set(stripe.creates.map((c) => c.key))).toEqual(new Set([`ppay_payout_${SUB}:live:po-1_transfer`]));
    expect(stripe.creates).toHaveLength(3);
    expect(stripe.transfers).toHaveLength(1);
  });

  it('a 409 for the same key in flight is not a refusal: the payout stays begun and is not failed', async () => {
    const t = setup();
    await t.approved('po-1');
    stripe.next.push('conflict');
    await expect(t.service.settle(SUB, 'live', 'po-1', 'paid')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(t.payout('po-1')).toMatchObject({ withdrawal_status: 'payout_pending', transfer_state: 'begun' });
    expect(await t.service.settle(SUB, 'live', 'po-1', 'paid')).toMatchObject({ withdrawal_status: 'paid' });
    expect(t.outcomes).toEqual(['unknown', 'created']);
    expect(stripe.transfers).toHaveLength(1);
  });

  it('the transfer.created event pays a payout whose answer was lost; the sweep then has nothing to ask', async () => {
    const t = setup();
    await t.approved('po-1');
    stripe.next.push('create_and_hang');
    await expect(t.service.settle(SUB, 'live', 'po-1', 'paid')).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    expect(await t.deliver(transferEvent('evt_tr_1', 'transfer.created', stripe.transfers[0]!))).toBe('applied');
    expect(t.payout('po-1')).toMatchObject({ withdrawal_status: 'paid', reservation: 'settled' });
    expect(t.payout('po-1').transfer!.transfer_reference).toBe('tr_fake1');
    t.advance(31_000);
    expect(await t.service.finishUnfinished()).toBe(0);
    expect(stripe.creates).toHaveLength(1);
    expect(t.subjects()).toEqual(['requested', 'approved', 'paid']);
  });
});

describe('transfer events (C26) and a reversal after paid (C27)', () => {
  it('a full reversal fails the paid payout, says settlement.failed and credits the wallet back once', async () => {
    const t = setup();
    await t.approved('po-1');
    await t.service.settle(SUB, 'live', 'po-1', 'paid');
    const reversed = { ...stripe.transfers[0]!, amount_reversed: 25_00, reversed: true };
    expect(await t.deliver(transferEvent('evt_rev_1', 'transfer.reversed', reversed))).toBe('applied');
    expect(t.payout('po-1')).toMatchObject({
      withdrawal_status: 'failed',
      reservation: 'returned',
      transfer_state: 'reversed',
      failure_reason: 'The transfer to the connected account was reversed',
    });
    expect(t.wallet()).toMatchObject({ available: usd(100_00), reserved: usd(0), total_credits: usd(125_00) });
    expect([...t.entries.docs.values()].filter((e) => e.reason === 'payout_reversal')).toHaveLength(1);
    expect(await t.deliver(transferEvent('evt_rev_2', 'transfer.reversed', reversed))).toBe('duplicate');
    expect(t.wallet()).toMatchObject({ available: usd(100_00) });
    expect(t.subjects()).toEqual(['requested', 'approved', 'paid', 'failed']);
    expect(t.outcomes).toEqual(['created', 'reversed']);
  });

  it('a partial reversal, another transfer or another amount is a mismatch that moves nothing', async () => {
    const t = setup();
    await t.approved('po-1');
    await t.service.settle(SUB, 'live', 'po-1', 'paid');
    const tr = stripe.transfers[0]!;
    const partial = { ...tr, amount_reversed: 10_00, reversed: false };
    expect(await t.deliver(transferEvent('evt_p', 'transfer.reversed', partial))).toBe('mismatch');
    expect(await t.deliver(transferEvent('evt_o', 'transfer.created', { ...tr, id: 'tr_other' }))).toBe('mismatch');
    expect(await t.deliver(transferEvent('evt_a', 'transfer.created', { ...tr, amount: 24_00 }))).toBe('mismatch');
    expect(t.payout('po-1')).toMatchObject({ withdrawal_status: 'paid', transfer_state: 'created' });
    expect(t.wallet()).toMatchObject({ available: usd(75_00), total_debits: usd(25_00) });
  });

  it('ignores transfers that are not ours, of a connected account, and payout.* events', async () => {
    const t = setup();
    const foreign = { id: 'tr_x', object: 'transfer', amount: 100, currency: 'usd', destination: ACCT, metadata: {} };
    expect(await t.deliver(transferEvent('evt_f', 'transfer.created', foreign))).toBe('not_ours');
    const connect = JSON.parse(transferEvent('evt_c', 'transfer.created', foreign)) as Record<string, unknown>;
    const withMeta = {
      ...foreign,
      metadata: { payout_request_id: '1', payout_reference: 'po', merchant_id: '1', mode: 'live' },
    };
    const ofAccount = JSON.stringify({ ...connect, account: ACCT, data: { object: withMeta } });
    expect(await t.deliver(ofAccount)).toBe('not_ours');
    const payout = JSON.stringify({ ...connect, id: 'evt_po', type: 'payout.paid', account: ACCT });
    expect(await t.deliver(payout)).toBe('unhandled_type');
  });

  it('an event ahead of its payout waits for it', async () => {
    const t = setup();
    const early = {
      id: 'tr_early',
      object: 'transfer',
      amount: 25_00,
      currency: 'usd',
      destination: ACCT,
      metadata: { payout_request_id: '9', payout_reference: 'po-9', merchant_id: String(SUB), mode: 'live' },
    };
    expect(await t.deliver(transferEvent('evt_e', 'transfer.created', early))).toBe('received');
  });
});

describe('regions, configuration and the other payouts (C28, C29)', () => {
  it('an EU connected account is paid from the EU platform account, and every retry asks that one', async () => {
    const t = setup({ region: 'EU' });
    await t.approved('po-eu');
    stripe.next.push('hang');
    await expect(t.service.settle(SUB, 'live', 'po-eu', 'paid')).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    // kyc now says otherwise: the begun transfer keeps the region it began with.
    t.destinations.set(SUB, 'live', { found: true, kyc_status: 'approved', fingerprint: 'fp_1', gateway_region: 'US' });
    t.advance(31_000);
    await t.service.finishUnfinished();
    expect(t.payout('po-eu')).toMatchObject({ withdrawal_status: 'paid', transfer: { region: 'EU' } });
    expect(stripe.creates.map((c) => c.secret)).toEqual([stripe.euSecret, stripe.euSecret]);
  });

  it('a region kyc does not give, or no card gateway configured: nothing begun, nothing paid', async () => {
    const unknown = setup({ region: null });
    await unknown.approved('po-1');
    await expect(unknown.service.settle(SUB, 'live', 'po-1', 'paid')).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(unknown.payout('po-1')).toMatchObject({ withdrawal_status: 'payout_pending', transfer_state: null });
    const off = setup({ configured: false });
    await off.approved('po-1');
    await expect(off.service.settle(SUB, 'live', 'po-1', 'paid')).rejects.toMatchObject({
      code: 'GATEWAY_NOT_CONFIGURED',
    });
    expect(off.payout('po-1').withdrawal_status).toBe('payout_pending');
    expect(stripe.creates).toHaveLength(0);
  });

  it('sandbox connected-account payouts and live bank payouts settle as before, with no transfer', async () => {
    const t = setup();
    t.destinations.set(SUB, 'sandbox', {
      found: true,
      kyc_status: 'approved',
      fingerprint: 'fp_1',
      gateway_region: 'US',
    });
    await t.approved('sb-1', 25_00, 'sandbox');
    expect(await t.service.settle(SUB, 'sandbox', 'sb-1', 'paid')).toMatchObject({
      withdrawal_status: 'paid',
      reservation: 'settled',
      transfer_state: null,
    });
    const bank = {
      ...connectedRequest('bank-1', 10_00).destination!,
      kind: 'bank_account' as const,
      gateway_account_id: null,
    };
    await t.approved('bank-1', 10_00, 'live', { destination: bank, payout_method: 'bank_transfer' });
    expect(await t.service.settle(SUB, 'live', 'bank-1', 'paid')).toMatchObject({ withdrawal_status: 'paid' });
    expect(await t.service.finishUnfinished()).toBe(0);
    expect(stripe.creates).toHaveLength(0);
    expect(t.outcomes).toEqual([]);
  });
});
