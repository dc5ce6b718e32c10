import type Stripe from 'stripe';
import type { ConnectedAccountEvent } from '../processor-event';
import type { StripeEventMappers } from './stripe-event-mapping.adapter';

/** Requirement lists are cut to this many entries, each to ITEM_MAX characters (kyc refuses more). */
export const MAX_REQUIREMENTS = 50;
const ITEM_MAX = 200;
const ID_MAX = 255;

const requirements = (list: string[] | null | undefined): string[] =>
  (list ?? []).slice(0, MAX_REQUIREMENTS).map((r) => String(r).slice(0, ITEM_MAX));

/** The connected account an event of a Connect endpoint is about (`event.account`); null for the platform's own. */
const connectedAccountOf = (event: Stripe.Event): string | null =>
  typeof event.account === 'string' && event.account.startsWith('acct_') && event.account.length <= ID_MAX
    ? event.account
    : null;

const occurredAt = (event: Stripe.Event) => new Date(event.created * 1_000).toISOString();

/**
 * `account.updated` of a connected account: its state whole (capabilities enabled, requirements due,
 * why it is disabled). Only the account of the event's own `account` is taken: an update of the
 * platform's own account (no `account`) is not a sub-merchant's.
 */
function accountUpdated(event: Stripe.Event): ConnectedAccountEvent | 'not_ours' {
  const account = event.data.object as Stripe.Account;
  const id = connectedAccountOf(event);
  if (!id || account.id !== id) return 'not_ours';
  const req = account.requirements;
  return {
    kind: 'connected_account',
    processor: 'stripe',
    event_id: event.id,
    type: event.type,
    // Only the live connector talks to Stripe (a sk_test_ key in live mode included).
    mode: 'live',
    account_reference: id,
    occurred_at: occurredAt(event),
    charges_enabled: account.charges_enabled === true,
    payouts_enabled: account.payouts_enabled === true,
    details_submitted: account.details_submitted === true,
    currently_due: requirements(req?.currently_due),
    past_due: requirements(req?.past_due),
    eventually_due: requirements(req?.eventually_due),
    disabled_reason: req?.disabled_reason ? String(req.disabled_reason).slice(0, ITEM_MAX) : null,
    deauthorized: false,
  };
}

/**
 * `account.application.deauthorized`: the connected account (the event's `account`) disconnected the
 * platform's application (the event's object). Nothing else of the account is known then.
 */
function deauthorized(event: Stripe.Event): ConnectedAccountEvent | 'not_ours' {
  const id = connectedAccountOf(event);
  if (!id) return 'not_ours';
  return {
    kind: 'connected_account',
    processor: 'stripe',
    event_id: event.id,
    type: event.type,
    mode: 'live',
    account_reference: id,
    occurred_at: occurredAt(event),
    charges_enabled: false,
    payouts_enabled: false,
    details_submitted: false,
    currently_due: [],
    past_due: [],
    eventually_due: [],
    disabled_reason: null,
    deauthorized: true,
  };
}

/** A connected account's status (Stripe Connect): found by the account's id, never by metadata. */
export const ACCOUNT_EVENTS: StripeEventMappers = {
  'account.updated': accountUpdated,
  'account.application.deauthorized': deauthorized,
};
