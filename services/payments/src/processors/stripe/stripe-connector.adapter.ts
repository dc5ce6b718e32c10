import type { Registry } from 'prom-client';
import { stripeClients, stripeWebhooks, stripeMetrics } from '@ppay/stripe-support';
import type { DisputeProcessor } from '../../disputes/ports';
import type { EventVerifier } from '../processor-event';
import type { ProcessorAdapter, SavedCardCharger } from '../ports';
import { stripeSettings, type StripeConfig } from './stripe-config.adapter';
import { STRIPE_EVENTS, StripeEventVerifier } from './stripe-events.adapter';
import { StripeDisputeProcessor } from './stripe-disputes.adapter';
import { StripeOffSessionCharger } from './stripe-off-session.adapter';
import { StripeCardGateway } from './stripe-payments.adapter';
import type { PayoutTransferProcessor } from '../../payouts/payout-transfer';
import { StripeTransferProcessor } from './stripe-transfers.adapter';

/**
 * The Stripe connector as the payments service plugs it in: the live card gateway, the off-session
 * charges of cards saved at Stripe, the live side of disputes, connected-account payouts' transfers
 * (from each region's platform account) and the verifier of its inbound events,
 * all or none (null without STRIPE_SECRET_KEY: live card requests then answer GATEWAY_NOT_CONFIGURED).
 * A bad configuration throws at boot.
 */
export function stripeConnector(
  config: StripeConfig,
  registry: Registry,
): {
  card: ProcessorAdapter;
  offSession: SavedCardCharger;
  disputes: DisputeProcessor;
  transfers: PayoutTransferProcessor;
  verifier: EventVerifier;
  eventTypes: readonly string[];
} | null {
  // Registered either way: the dashboards and alerts name them (an unconfigured install shows zero).
  const observer = stripeMetrics(registry);
  const settings = stripeSettings(config);
  if (!settings) return null;
  const clients = stripeClients(settings.regions);
  const client = clients.US;
  return {
    card: new StripeCardGateway(client, settings, observer),
    offSession: new StripeOffSessionCharger(client, observer),
    disputes: new StripeDisputeProcessor(client, observer),
    transfers: new StripeTransferProcessor(clients, observer),
    verifier: new StripeEventVerifier(stripeWebhooks(), settings.webhookSecrets),
    eventTypes: Object.keys(STRIPE_EVENTS),
  };
}
