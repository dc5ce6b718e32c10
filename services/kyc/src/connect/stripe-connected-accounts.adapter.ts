import type Stripe from 'stripe';
import type { ProcessorGuard } from '@ppay/runtime';
import { observedCall, type StripeObserver, type StripeRegion } from '@ppay/stripe-support';
import type { ConnectedAccount, ConnectedAccountBalance } from '../cases/kyc-case';
import type { AccountLinkPurpose, ConnectedAccountProvider, GatewayAccountRef } from '../ports';

/** The part of the Stripe library the Connect connector calls (stripe-mock and unit fakes stand behind it). */
export interface StripeConnectClient {
  accounts: Pick<Stripe['accounts'], 'create' | 'del'>;
  accountLinks: Pick<Stripe['accountLinks'], 'create'>;
  accountSessions: Pick<Stripe['accountSessions'], 'create'>;
  balance: Pick<Stripe['balance'], 'retrieve'>;
}

/** One connected account per merchant, however often its creation is asked (a lost answer, a race). */
export const accountKey = (merchantId: number) => `ppay_kyc_merchant_${merchantId}_connected_account`;

const BUSINESS_TYPES: Record<string, Stripe.AccountCreateParams.BusinessType> = {
  individual: 'individual',
  registered_business: 'company',
};

/**
 * Live connected accounts on Stripe Connect (spec 4.9). Accounts are made with controller properties:
 * the platform collects requirements (through Stripe-hosted Account Links and embedded onboarding, so
 * `account_update` links exist for payout changes), pays Stripe's fees and carries losses; no Stripe
 * dashboard. Every call runs behind the guard's breaker of its kind, counted by the observer; each
 * region's platform account has its own client.
 */
export class StripeConnectedAccounts implements ConnectedAccountProvider {
  constructor(
    private readonly clients: Record<StripeRegion, StripeConnectClient>,
    private readonly publishableKeys: Record<StripeRegion, string>,
    private readonly observer: StripeObserver,
    private readonly guard: ProcessorGuard,
  ) {}

  async createAccount(input: {
    merchantId: number;
    country: string;
    businessType: string;
    settlementCurrency: string;
    region: StripeRegion;
  }): Promise<{ gateway_account_id: string }> {
    const account = await this.call('account_create', () =>
      this.clients[input.region].accounts.create(
        {
          country: input.country,
          business_type: BUSINESS_TYPES[input.businessType],
          default_currency: input.settlementCurrency.toLowerCase(),
          controller: {
            requirement_collection: 'application',
            fees: { payer: 'application' },
            losses: { payments: 'application' },
            stripe_dashboard: { type: 'none' },
          },
          capabilities: { card_payments: { requested: true }, transfers: { requested: true } },
          metadata: { ppay_merchant_id: String(input.merchantId) },
        },
        { idempotencyKey: accountKey(input.merchantId) },
      ),
    );
    return { gateway_account_id: account.id };
  }

  publishableKey(account: GatewayAccountRef): string {
    return this.publishableKeys[account.gateway_region];
  }

  async clientSecret(account: GatewayAccountRef, purpose: AccountLinkPurpose): Promise<string> {
    const components: Stripe.AccountSessionCreateParams.Components =
      purpose === 'onboarding'
        ? { account_onboarding: { enabled: true } }
        : { account_management: { enabled: true, features: { external_account_collection: true } } };
    const session = await this.call('account_session', () =>
      this.clients[account.gateway_region].accountSessions.create({
        account: account.gateway_account_id,
        components,
      }),
    );
    return session.client_secret;
  }

  async gatewayLink(
    account: GatewayAccountRef,
    purpose: AccountLinkPurpose,
    urls: { returnUrl: string; refreshUrl: string },
  ): Promise<string> {
    const link = await this.call('account_link', () =>
      this.clients[account.gateway_region].accountLinks.create({
        account: account.gateway_account_id,
        type: purpose === 'onboarding' ? 'account_onboarding' : 'account_update',
        return_url: urls.returnUrl,
        refresh_url: urls.refreshUrl,
        // Everything Stripe will ever ask for, up front: fewer later "more information" rounds.
        ...(purpose === 'onboarding' ? { collection_options: { fields: 'eventually_due' as const } } : {}),
      }),
    );
    return link.url;
  }

  async balance(account: ConnectedAccount, settlementCurrency: string): Promise<ConnectedAccountBalance> {
    const balance = await this.call('balance', () =>
      this.clients[account.gateway_region].balance.retrieve({}, { stripeAccount: account.gateway_account_id }),
    );
    return balanceIn(balance, settlementCurrency);
  }

  async closeAccount(account: ConnectedAccount): Promise<void> {
    await this.call('account_delete', async () => {
      try {
        await this.clients[account.gateway_region].accounts.del(account.gateway_account_id);
      } catch (err) {
        // Deleted by an earlier attempt whose answer was lost: closed is what was asked.
        if ((err as { code?: string }).code !== 'resource_missing') throw err;
      }
    });
  }

  private call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    return this.guard.call(operation, () => observedCall(this.observer, operation, run));
  }
}

/**
 * The account's balance as one currency: the settlement currency's, unless money is held in another
 * currency, whose amounts are then the answer (they keep the account open just the same).
 */
export function balanceIn(balance: Pick<Stripe.Balance, 'available' | 'pending'>, settlementCurrency: string) {
  const total = (entries: { amount: number; currency: string }[], currency: string) =>
    entries.filter((e) => e.currency.toUpperCase() === currency).reduce((sum, e) => sum + e.amount, 0);
  const held = [...balance.available, ...balance.pending].find(
    (e) => e.amount !== 0 && e.currency.toUpperCase() !== settlementCurrency,
  );
  const currency = held ? held.currency.toUpperCase() : settlementCurrency;
  return {
    available: { amount: total(balance.available, currency), currency },
    pending: { amount: total(balance.pending, currency), currency },
  };
}
