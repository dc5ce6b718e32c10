import { asDecoded, kycWorld, OPERATOR, sandbox } from '../memory-ports.test-util';
import { connectedBody } from '../submissions/submission-bodies.test-util';

const SUB = 20;

async function withConnectedAccount() {
  const w = kycWorld();
  w.directory.addOperator(OPERATOR);
  w.directory.addSub(OPERATOR, SUB);
  const res = await w.submissions.submit(sandbox, SUB, asDecoded('SubmitKyc', connectedBody()));
  if (res.kind !== 'connected') throw new Error('expected the connected route');
  return { ...w, accounts: w.gatewayAccounts, accountId: res.kyc.connected!.gateway_account_id };
}

describe('connected gateway account on delete merchant (spec 4.9 steps 2–3)', () => {
  it('closes an account whose available and pending balance are zero, and a repeat answers the same', async () => {
    const w = await withConnectedAccount();
    const first = await w.accounts.closeForDeletion(SUB, 'sandbox');
    expect(first).toEqual({
      found: true,
      closed: true,
      balance: { available: { amount: 0, currency: 'USD' }, pending: { amount: 0, currency: 'USD' } },
      gateway_account_id: w.accountId,
    });
    expect(w.gateway.closed).toEqual([w.accountId]);
    expect((await w.cases.findByMerchant(SUB, 'sandbox'))!.connected!.closed_at?.getTime()).toBe(
      w.clock.now().getTime(),
    );
    expect(await w.accounts.closeForDeletion(SUB, 'sandbox')).toEqual(first);
    expect(w.gateway.closed).toHaveLength(1);
  });

  it('keeps an account with money available or pending, and reports both', async () => {
    for (const balance of [
      { available: 500, pending: 0 },
      { available: 0, pending: 1 },
    ]) {
      const w = await withConnectedAccount();
      w.gateway.balances.set(w.accountId, balance);
      const res = await w.accounts.closeForDeletion(SUB, 'sandbox');
      expect(res).toEqual({
        found: true,
        closed: false,
        balance: {
          available: { amount: balance.available, currency: 'USD' },
          pending: { amount: balance.pending, currency: 'USD' },
        },
        gateway_account_id: w.accountId,
      });
      expect(w.gateway.closed).toEqual([]);
    }
  });

  it('reports no account for a merchant without one, or in the other mode', async () => {
    const w = await withConnectedAccount();
    expect(await w.accounts.closeForDeletion(SUB + 1, 'sandbox')).toEqual({
      found: false,
      closed: false,
      balance: null,
      gateway_account_id: null,
    });
    expect(await w.accounts.closeForDeletion(SUB, 'live')).toEqual({
      found: false,
      closed: false,
      balance: null,
      gateway_account_id: null,
    });
  });
});
