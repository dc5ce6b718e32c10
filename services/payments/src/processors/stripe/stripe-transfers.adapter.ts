import type Stripe from 'stripe';
import { classifyStripeError, observedCall, stripeFailureError, type StripeObserver } from '@ppay/stripe-support';
import { PlatformError } from '@ppay/kernel';
import type {
  GatewayRegion,
  PayoutTransferProcessor,
  TransferAnswer,
  TransferRequest,
} from '../../payouts/payout-transfer';

/** The part of the Stripe library transfers need (the contract tests and unit fakes stand behind it). */
export interface StripeTransferClient {
  transfers: Pick<Stripe['transfers'], 'create' | 'list'>;
}

/**
 * The transfer group of a payout's transfer: how an earlier attempt's transfer is found again once
 * Stripe may have forgotten the idempotency key (it keeps one for a day).
 */
export const transferGroupOf = (request: Pick<TransferRequest, 'idempotency_key'>) => request.idempotency_key;

/** The metadata a payout's Transfer carries: how its events find the payout (never by amount). */
export function transferMetadata(request: TransferRequest): Record<string, string> {
  return {
    payout_request_id: String(request.payout_request_id),
    payout_reference: request.reference,
    merchant_id: String(request.merchant_id),
    mode: 'live',
  };
}

/**
 * Live connected-account payouts as Stripe Transfers from the platform's balance to the connected
 * account (`destination`; no `Stripe-Account` header: the platform makes it). Each region's connected
 * accounts are paid by that region's platform account (C28). Stripe's refusal (4xx: the platform's
 * balance short, the account unable to receive) is an answer; no answer in time or Stripe unavailable
 * throw, the outcome unknown, and the caller asks again with the same key (C25).
 */
export class StripeTransferProcessor implements PayoutTransferProcessor {
  constructor(
    private readonly clients: Record<GatewayRegion, StripeTransferClient>,
    private readonly observer: StripeObserver,
  ) {}

  async create(request: TransferRequest): Promise<TransferAnswer> {
    const client = this.clients[request.region];
    if (request.asked_before) {
      const found = await this.find(client, request);
      if (found) return { outcome: 'created', transfer_reference: found.id };
    }
    return this.createOnce(client, request);
  }

  private async createOnce(client: StripeTransferClient, request: TransferRequest): Promise<TransferAnswer> {
    try {
      const created = await client.transfers.create(
        {
          amount: request.amount.amount,
          currency: request.amount.currency.toLowerCase(),
          destination: request.account,
          transfer_group: transferGroupOf(request),
          description: `Payout ${request.reference}`.slice(0, 350),
          metadata: transferMetadata(request),
        },
        { idempotencyKey: request.idempotency_key },
      );
      this.observer.call('transfer_create', 'ok');
      return { outcome: 'created', transfer_reference: created.id };
    } catch (err) {
      const failure = classifyStripeError(err);
      this.observer.call('transfer_create', failure.kind);
      // 409: the same key still in flight (a concurrent attempt) — not Stripe's decision on the transfer.
      if (failure.kind === 'refused' && failure.status !== 409 && failure.code !== 'idempotency_error') {
        return { outcome: 'refused', reason: failure.code };
      }
      if (failure.kind === 'refused') {
        throw new PlatformError('SERVICE_UNAVAILABLE', undefined, {
          detail: 'card_gateway transfer is still in progress; retry the request',
        });
      }
      throw stripeFailureError(failure, 'transfer', () => this.observer.authFailure());
    }
  }

  /** A transfer of this payout made by an earlier attempt (one per group: the first page is enough). */
  private async find(client: StripeTransferClient, request: TransferRequest): Promise<Stripe.Transfer | null> {
    const page = await observedCall(this.observer, 'transfer_list', () =>
      client.transfers.list({ transfer_group: transferGroupOf(request), limit: 10 }),
    );
    const id = String(request.payout_request_id);
    return page.data.find((t) => t.metadata?.payout_request_id === id) ?? null;
  }
}
