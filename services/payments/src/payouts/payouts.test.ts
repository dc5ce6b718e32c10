import { payoutResource, type PayoutRequestInput } from './payout';
import { PayoutService } from './payouts';
import { WalletLedger } from '../wallets/wallet-ledger';
import { MemoryLedgerEntries, MemoryWallets, testCredit } from '../wallets/wallet-memory.test-util';
import { MemoryPayoutDestinations, MemoryPayouts } from './payout-memory.test-util';

const SUB = 2000;
const ngn = (amount: number) => ({ amount, currency: 'NGN' });
const OPERATOR = 1000;

function setup(credit = 100_000) {
  const entries = new MemoryLedgerEntries();
  const wallets = new MemoryWallets();
  const payouts = new MemoryPayouts();
  const ledger = new WalletLedger(entries, wallets, undefined, async () => undefined);
  const destinations = new MemoryPayoutDestinations();
  const service = new PayoutService({ payouts, wallets, ledger, destinations });
  const wallet = () => wallets.docs.get(`${SUB}:sandbox:NGN`)!;
  const fund = (amount: number, id = 'c1') =>
    ledger.append([testCredit(id, amount, { merchant_id: SUB, reason: 'marketplace_split' })]);
  return {
    entries,
    wallets,
    payouts,
    ledger,
    service,
    wallet,
    fund,
    destinations,
    ready: credit ? fund(credit) : Promise.resolve(),
  };
}

const request = (reference: string, amount = 10_000): PayoutRequestInput => ({
  amount: { amount, currency: 'NGN' },
  reference,
  marketplace_id: OPERATOR,
  payment_gateway: 'naira_gateway',
  payout_method: 'bank_transfer',
  destination: {
    kind: 'bank_account',
    bank_name: 'Access Bank',
    institution_id: 'inst_access',
    account_number_masked: '******3456',
    account_name: 'ADEBAYO JOHN',
    gateway_account_id: null,
    fingerprint: 'fp_1',
  },
});

describe('PayoutService: staged payouts over the wallet (spec 2.10, 3.4, 4.10)', () => {
  it('reserves on request, and a repeated reference answers the same request', async () => {
    const w = setup();
    await w.ready;
    const first = await w.service.initiate(SUB, 'sandbox', request('po-1'));
    expect(first).toMatchObject({ request_status: 'pending', reservation: 'held', withdrawal_status: null });
    expect(await w.service.initiate(SUB, 'sandbox', request('po-1'))).toMatchObject({
      payout_request_id: first.payout_request_id,
    });
    expect(w.wallet()).toMatchObject({ available: ngn(90_000), reserved: ngn(10_000), total_debits: ngn(0) });
    await expect(w.service.initiate(SUB, 'sandbox', request('po-1', 20_000))).rejects.toMatchObject({
      code: 'PAYOUT_REFERENCE_REUSED',
    });
    expect(w.payouts.events.map((e) => e.subject)).toEqual(['payments.settlement.requested']);
  });

  it('a wallet a dispute took below zero gets no payout requested or approved until credits pay the debt', async () => {
    const w = setup(100_000);
    await w.ready;
    await w.service.initiate(SUB, 'sandbox', request('po-1', 60_000));
    const dispute = testCredit('dp', 70_000, { merchant_id: SUB, kind: 'debit', reason: 'dispute_withdrawal' });
    await w.ledger.append([dispute]);
    expect(w.wallet()).toMatchObject({ available: ngn(-30_000), reserved: ngn(60_000) });
    await expect(w.service.initiate(SUB, 'sandbox', request('po-2', 1))).rejects.toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
    });
    await expect(w.service.approve(SUB, 'sandbox', 'po-1', OPERATOR)).rejects.toMatchObject({
      code: 'WALLET_IN_DEBT',
      param: 'reference',
    });
    await w.fund(30_000, 'c2'); // a later credit pays the debt first
    expect(await w.service.approve(SUB, 'sandbox', 'po-1', OPERATOR)).toMatchObject({ request_status: 'approved' });
  });

  it('50 concurrent requests against a balance that covers 10 reserve exactly 10', async () => {
    const w = setup(100_000);
    await w.ready;
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => w.service.initiate(SUB, 'sandbox', request(`race-${i}`))),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    expect(ok).toHaveLength(10);
    expect(refused.every((r) => (r as PromiseRejectedResult).reason.code === 'INSUFFICIENT_BALANCE')).toBe(true);
    expect(w.wallet()).toMatchObject({ available: ngn(0), reserved: ngn(100_000) });
    // Refused requests leave no staged request behind: the reference may be used again.
    expect(w.payouts.docs.size).toBe(10);
  });

  it('without the money the request is refused and nothing is staged', async () => {
    const w = setup(5_000);
    await w.ready;
    await expect(w.service.initiate(SUB, 'sandbox', request('big'))).rejects.toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
    });
    await w.fund(20_000, 'c2');
    expect(await w.service.initiate(SUB, 'sandbox', request('big'))).toMatchObject({ reservation: 'held' });
  });

  it('approve: payout_pending with a withdrawal id; 20 concurrent approvals → one wins, the rest Already claimed', async () => {
    const w = setup();
    await w.ready;
    await w.service.initiate(SUB, 'sandbox', request('po-1'));
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => w.service.approve(SUB, 'sandbox', 'po-1', OPERATOR)),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect((won[0] as PromiseFulfilledResult<unknown>).value).toMatchObject({
      request_status: 'approved',
      withdrawal_status: 'payout_pending',
      withdrawal_id: expect.any(Number),
    });
    for (const r of results.filter((x) => x.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason.code).toBe('PAYOUT_ALREADY_CLAIMED');
    // Approval moves no money: it stays reserved until settlement.
    expect(w.wallet()).toMatchObject({ available: ngn(90_000), reserved: ngn(10_000) });
  });

  it('another marketplace is refused (403) and an unknown reference or mode is 404', async () => {
    const w = setup();
    await w.ready;
    await w.service.initiate(SUB, 'sandbox', request('po-1'));
    await expect(w.service.approve(SUB, 'sandbox', 'po-1', 9999)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(w.service.approve(SUB, 'live', 'po-1', OPERATOR)).rejects.toMatchObject({
      code: 'PAYOUT_REQUEST_NOT_FOUND',
    });
    await expect(w.service.approve(SUB, 'sandbox', 'nope', OPERATOR)).rejects.toMatchObject({
      code: 'PAYOUT_REQUEST_NOT_FOUND',
    });
  });

  it('reject releases the reservation; the request is final', async () => {
    const w = setup();
    await w.ready;
    await w.service.initiate(SUB, 'sandbox', request('po-1', 100_000));
    await expect(w.service.initiate(SUB, 'sandbox', request('po-2', 1))).rejects.toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
    });
    const rejected = await w.service.reject(SUB, 'sandbox', 'po-1', OPERATOR, 'wrong account');
    expect(rejected).toMatchObject({
      request_status: 'rejected',
      rejection_reason: 'wrong account',
      reservation: 'released',
    });
    expect(w.wallet()).toMatchObject({ available: ngn(100_000), reserved: ngn(0) });
    await expect(w.service.approve(SUB, 'sandbox', 'po-1', OPERATOR)).rejects.toMatchObject({
      code: 'PAYOUT_ALREADY_CLAIMED',
    });
    expect(await w.service.initiate(SUB, 'sandbox', request('po-2', 100_000))).toMatchObject({ reservation: 'held' });
  });

  it('settlement: paid is the final debit (wallet.debited), failed gives the money back', async () => {
    const w = setup();
    await w.ready;
    await w.service.initiate(SUB, 'sandbox', request('paid', 30_000));
    await w.service.initiate(SUB, 'sandbox', request('failed', 20_000));
    await expect(w.service.settle(SUB, 'sandbox', 'paid', 'paid')).rejects.toMatchObject({
      code: 'PAYOUT_NOT_SETTLEABLE',
    });
    await w.service.approve(SUB, 'sandbox', 'paid', OPERATOR);
    await w.service.approve(SUB, 'sandbox', 'failed', OPERATOR);
    expect(await w.service.settle(SUB, 'sandbox', 'paid', 'paid')).toMatchObject({
      withdrawal_status: 'paid',
      reservation: 'settled',
    });
    expect(await w.service.settle(SUB, 'sandbox', 'failed', 'failed', 'bank refused')).toMatchObject({
      withdrawal_status: 'failed',
      failure_reason: 'bank refused',
      reservation: 'released',
    });
    expect(w.wallet()).toMatchObject({
      available: ngn(70_000),
      reserved: ngn(0),
      total_credits: ngn(100_000),
      total_debits: ngn(30_000),
      transaction_count: 2,
      reservations: {},
    });
    await expect(w.service.settle(SUB, 'sandbox', 'paid', 'failed')).rejects.toMatchObject({
      code: 'PAYOUT_NOT_SETTLEABLE',
    });
    const debit = w.entries.docs.get('payout:1')!;
    expect(debit).toMatchObject({ kind: 'debit', reason: 'payout', amount: { amount: 30_000, currency: 'NGN' } });
    expect(w.payouts.events.map((e) => e.subject)).toEqual([
      'payments.settlement.requested',
      'payments.settlement.requested',
      'payments.settlement.approved',
      'payments.settlement.approved',
      'payments.settlement.paid',
      'payments.settlement.failed',
    ]);
  });

  it('a step a crash left begun is finished by the sweep, once', async () => {
    const w = setup();
    await w.ready;
    await w.service.initiate(SUB, 'sandbox', request('paid', 30_000));
    await w.service.approve(SUB, 'sandbox', 'paid', OPERATOR);
    // The settlement's state change happened, the wallet step did not (the process died in between).
    const key = `${SUB}:sandbox:paid`;
    w.payouts.docs.get(key)!.withdrawal_status = 'paid';
    w.payouts.docs.get(key)!.reservation = 'settling';
    // A staged request whose reservation never happened.
    await w.payouts.insert({
      ...w.payouts.docs.get(key)!,
      payout_key: `${SUB}:sandbox:x`,
      reference: 'x',
      payout_request_id: 77,
      request_status: 'pending',
      withdrawal_status: null,
      reservation: 'pending',
    });
    expect(await w.service.finishUnfinished()).toBe(2);
    expect(await w.service.finishUnfinished()).toBe(0);
    expect(w.wallet()).toMatchObject({ available: ngn(40_000), reserved: ngn(30_000), total_debits: ngn(30_000) });
    expect(w.payouts.docs.get(`${SUB}:sandbox:x`)).toMatchObject({ reservation: 'held' });
  });
});

describe('a payout goes where KYC said when it was requested (Hardening 2 item 5)', () => {
  it('keeps the destination with the request and shows it', async () => {
    const w = setup();
    await w.ready;
    const p = await w.service.initiate(SUB, 'sandbox', request('po-1'));
    expect(payoutResource(p).destination).toEqual(request('po-1').destination);
  });

  it('refuses approval and payment once the payout account changed, or KYC is no longer approved', async () => {
    const w = setup();
    await w.ready;
    for (const ref of ['po-1', 'po-2', 'po-3']) await w.service.initiate(SUB, 'sandbox', request(ref));
    w.destinations.set(SUB, 'sandbox', { found: true, kyc_status: 'approved', fingerprint: 'fp_2' });
    const changed = await w.service.approve(SUB, 'sandbox', 'po-1', OPERATOR).catch((e: unknown) => e);
    expect(changed).toMatchObject({ code: 'PAYOUT_DESTINATION_CHANGED', param: 'reference' });
    w.destinations.set(SUB, 'sandbox', { found: true, kyc_status: 'revoked', fingerprint: 'fp_1' });
    await expect(w.service.approve(SUB, 'sandbox', 'po-1', OPERATOR)).rejects.toMatchObject({
      code: 'PAYOUT_KYC_NOT_APPROVED',
      detail: "The sub-merchant's KYC is revoked",
    });
    w.destinations.set(SUB, 'sandbox', { found: false, why: 'PAYOUT_ACCOUNT_NOT_FOUND' });
    await expect(w.service.approve(SUB, 'sandbox', 'po-1', OPERATOR)).rejects.toMatchObject({
      code: 'PAYOUT_DESTINATION_CHANGED',
    });
    expect(w.payouts.docs.get(`${SUB}:sandbox:po-1`)!.request_status).toBe('pending');
    // Back as it was: approved; then changed again before it is paid: not paid, but a failure is recorded.
    w.destinations.set(SUB, 'sandbox', { found: true, kyc_status: 'approved', fingerprint: 'fp_1' });
    await w.service.approve(SUB, 'sandbox', 'po-1', OPERATOR);
    await w.service.approve(SUB, 'sandbox', 'po-2', OPERATOR);
    w.destinations.set(SUB, 'sandbox', { found: true, kyc_status: 'approved', fingerprint: 'fp_3' });
    await expect(w.service.settle(SUB, 'sandbox', 'po-1', 'paid')).rejects.toMatchObject({
      code: 'PAYOUT_DESTINATION_CHANGED',
    });
    expect(w.wallet()).toMatchObject({ reserved: ngn(30_000), total_debits: ngn(0) });
    expect(await w.service.settle(SUB, 'sandbox', 'po-2', 'failed')).toMatchObject({ withdrawal_status: 'failed' });
  });

  it('a request made before destinations were recorded is neither approved nor paid', async () => {
    const w = setup();
    await w.ready;
    await w.service.initiate(SUB, 'sandbox', { ...request('po-old'), destination: null });
    await expect(w.service.approve(SUB, 'sandbox', 'po-old', OPERATOR)).rejects.toMatchObject({
      code: 'PAYOUT_DESTINATION_CHANGED',
      detail: expect.stringContaining('before payout destinations were recorded'),
    });
  });
});
