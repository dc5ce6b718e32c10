import Stripe from 'stripe';
import { ProcessorGuard } from '@ppay/runtime';
import type { ConnectedAccount } from '../cases/kyc-case';
import { balanceIn, StripeConnectedAccounts, type StripeConnectClient } from './stripe-connected-accounts.adapter';

const ACCOUNT: ConnectedAccount = {
  gateway_account_id: 'acct_unit1',
  gateway_region: 'US',
  country: 'US',
  preferred_currency: null,
};
const entry = (amount: number, currency: string) => ({ amount, currency, source_types: { card: amount } });

function connectWith(del: () => Promise<unknown>) {
  const outcomes: string[] = [];
  const client = { accounts: { del } } as unknown as StripeConnectClient;
  const provider = new StripeConnectedAccounts(
    { US: client, EU: client },
    { US: 'pk_test_us', EU: 'pk_test_eu' },
    { call: (op, outcome) => outcomes.push(`${op}:${outcome}`), authFailure: () => outcomes.push('auth') },
    new ProcessorGuard('stripe_connect', { timeoutMs: 1_000, resetTimeoutMs: 30_000 }),
  );
  return { provider, outcomes };
}

describe('Stripe connected accounts', () => {
  it('an account an earlier attempt deleted is closed; any other refusal is not', async () => {
    const missing = new Stripe.errors.StripeInvalidRequestError({
      type: 'invalid_request_error',
      code: 'resource_missing',
    });
    const gone = connectWith(() => Promise.reject(missing));
    await expect(gone.provider.closeAccount(ACCOUNT)).resolves.toBeUndefined();
    expect(gone.outcomes).toEqual(['account_delete:ok']);
    const refused = new Stripe.errors.StripeInvalidRequestError({
      type: 'invalid_request_error',
      code: 'account_invalid',
    });
    const kept = connectWith(() => Promise.reject(refused));
    await expect(kept.provider.closeAccount(ACCOUNT)).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(kept.outcomes).toEqual(['account_delete:refused']);
  });

  it('no answer in time is an unknown outcome (UPSTREAM_TIMEOUT), never a closed account', async () => {
    const timeout = new Stripe.errors.StripeConnectionError({
      type: 'api_error',
      detail: { code: 'ETIMEDOUT' },
    } as never);
    const slow = connectWith(() => Promise.reject(timeout));
    await expect(slow.provider.closeAccount(ACCOUNT)).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
  });

  it("a balance is the settlement currency's, unless another currency holds money (which keeps the account)", () => {
    expect(balanceIn({ available: [entry(0, 'usd')], pending: [entry(250, 'usd'), entry(-50, 'usd')] }, 'USD')).toEqual(
      {
        available: { amount: 0, currency: 'USD' },
        pending: { amount: 200, currency: 'USD' },
      },
    );
    expect(balanceIn({ available: [entry(0, 'usd'), entry(900, 'eur')], pending: [entry(0, 'usd')] }, 'USD')).toEqual({
      available: { amount: 900, currency: 'EUR' },
      pending: { amount: 0, currency: 'EUR' },
    });
    expect(balanceIn({ available: [], pending: [] }, 'GBP')).toEqual({
      available: { amount: 0, currency: 'GBP' },
      pending: { amount: 0, currency: 'GBP' },
    });
  });
});
