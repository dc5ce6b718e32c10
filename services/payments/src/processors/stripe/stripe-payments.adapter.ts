import { PlatformError, processorGroupOf, type Mode } from '@ppay/kernel';
import type {
  PaymentIntent,
  ProcessorAdapter,
  ProcessorAuthorization,
  ProcessorFeature,
  RefundAnswer,
  RefundIntent,
} from '../ports';
import { PROCESSOR_IDS } from '../processors';
import type { StripeClient } from './stripe-client.adapter';
import type { StripeSettings } from './stripe-config';
import { classifyStripeError, stripeFailureError } from './stripe-errors.adapter';

/** Counts each call by operation and outcome; `authFailure` is the alert for a key Stripe refuses. */
export interface StripeObserver {
  call(operation: string, outcome: string): void;
  authFailure(): void;
}

/** The idempotency key of a charge's PaymentIntent: one PaymentIntent per charge, however often asked. */
export const paymentIntentKey = (chargeId: string) => `ppay_${chargeId}_payment_intent`;

/**
 * The live card gateway on Stripe (USD, EUR, GBP, CAD, AUD). The platform's own Stripe account takes
 * every payment; merchants' shares go to their wallets and leave by the staged payouts
 * (docs/decisions.md, Live card payments), so `gateway_account_id` is the platform's account.
 * Charges only for now: refunds and hosted checkout are refused by the registry until built.
 */
export class StripeCardGateway implements ProcessorAdapter {
  readonly id = PROCESSOR_IDS.card;
  readonly mode: Mode = 'live';
  readonly features: readonly ProcessorFeature[] = ['charges'];
  private account: Promise<string> | null = null;

  constructor(
    private readonly client: StripeClient,
    private readonly settings: Pick<StripeSettings, 'publishableKey' | 'accountId'>,
    private readonly observer: StripeObserver,
  ) {}

  async initialise(intent: PaymentIntent): Promise<ProcessorAuthorization> {
    if (intent.mode !== 'live' || processorGroupOf(intent.amount.currency) !== 'card') {
      throw new PlatformError(
        'INTERNAL',
        `the Stripe card gateway cannot take a ${intent.mode} ${intent.amount.currency} charge`,
      );
    }
    const [created, accountId] = await Promise.all([
      this.call('payment_intents.create', () =>
        this.client.paymentIntents.create(
          {
            amount: intent.amount.amount,
            currency: intent.amount.currency.toLowerCase(),
            automatic_payment_methods: { enabled: true },
            description: intent.description ? intent.description.slice(0, 1_000) : undefined,
            metadata: { charge_id: intent.charge_id, merchant_id: String(intent.merchant_id), mode: intent.mode },
          },
          { idempotencyKey: paymentIntentKey(intent.charge_id) },
        ),
      ),
      this.accountId(),
    ]);
    if (!created.client_secret) {
      throw new PlatformError('INTERNAL', 'Stripe answered a PaymentIntent without a client secret');
    }
    return {
      processor_reference: created.id,
      client_secret: created.client_secret,
      publishable_key: this.settings.publishableKey,
      gateway_account_id: accountId,
    };
  }

  /** Never reached: the registry refuses live refunds of this gateway (no `refunds` feature) before any is reserved. */
  async refund(_request: RefundIntent): Promise<RefundAnswer> {
    throw new PlatformError('GATEWAY_NOT_CONFIGURED', 'Live refunds are not enabled for this currency yet');
  }

  /** The platform's own account: configured, or read once from Stripe (a failed read is asked again next time). */
  private accountId(): Promise<string> {
    if (this.settings.accountId) return Promise.resolve(this.settings.accountId);
    this.account ??= this.call('accounts.retrieve', () => this.client.accounts.retrieveCurrent()).then(
      (account) => account.id,
      (err: unknown) => {
        this.account = null;
        throw err;
      },
    );
    return this.account;
  }

  private async call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      const result = await run();
      this.observer.call(operation, 'ok');
      return result;
    } catch (err) {
      const failure = classifyStripeError(err);
      this.observer.call(operation, failure.kind);
      throw stripeFailureError(failure, operation, () => this.observer.authFailure());
    }
  }
}
