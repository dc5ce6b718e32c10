import type Stripe from 'stripe';

/** The part of the Stripe library the connector calls: the contract tests and unit fakes stand behind it. */
export interface StripeClient {
  paymentIntents: Pick<Stripe['paymentIntents'], 'create' | 'cancel' | 'retrieve' | 'list'>;
  accounts: Pick<Stripe['accounts'], 'retrieveCurrent'>;
  refunds: Pick<Stripe['refunds'], 'create' | 'retrieve' | 'list'>;
  disputes: Pick<Stripe['disputes'], 'update' | 'close' | 'retrieve'>;
  checkout: { sessions: Pick<Stripe['checkout']['sessions'], 'create' | 'retrieve'> };
}
