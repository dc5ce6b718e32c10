import { PlatformError, type Mode } from '@ppay/kernel';
import {
  isProcessorSavedCard,
  type CardPayment,
  type CardResult,
  type SandboxSavedCard,
  type SavedCard,
  type SavedCardPayment,
  type TestCard,
  type ValidCard,
} from './cards';
import type {
  CardProcessor,
  CheckoutIntent,
  PaymentIntent,
  ProcessorAdapter,
  ProcessorRegistry,
  RefundAnswer,
  RefundIntent,
} from './ports';
import type { ProcessorGroup } from './processors';

/** Fake processors for use-case tests: they record what they were asked and answer as the test says. */

/** Sandbox-like processors that record what they were asked, and can be made to fail. */
export class FakeProcessors implements ProcessorRegistry {
  readonly intents: PaymentIntent[] = [];
  readonly refunds: RefundIntent[] = [];
  readonly checkouts: CheckoutIntent[] = [];
  /** The answer to refunds (default: succeeded); an Error is thrown instead. */
  refundAnswer?: RefundAnswer | Error;
  failWith?: Error;
  /** When set, initialise waits for this promise (a slow processor). */
  gate?: Promise<void>;
  adapterFor(group: ProcessorGroup, mode: Mode): ProcessorAdapter {
    if (mode === 'live') throw new PlatformError('GATEWAY_NOT_CONFIGURED');
    return {
      id: `${group}_gateway`,
      mode,
      features: ['charges', 'refunds', 'checkout'],
      initialise: async (intent) => {
        this.intents.push(intent);
        if (this.gate) await this.gate;
        if (this.failWith) throw this.failWith;
        return group === 'card'
          ? {
              processor_reference: `ref_${intent.charge_id}`,
              client_secret: `secret_${intent.charge_id}`,
              publishable_key: 'pk_test',
              gateway_account_id: `acct_${intent.merchant_id}`,
            }
          : { processor_reference: `ref_${intent.charge_id}` };
      },
      initialiseCheckout: async (intent) => {
        this.checkouts.push(intent);
        if (this.failWith) throw this.failWith;
        return { processor_reference: `ref_${intent.session_id}`, payment_url: null, expires_at: intent.expires_at };
      },
      checkoutPayment: () => Promise.reject(new Error('sandbox sessions are paid on our page')),
      refund: async (request) => {
        this.refunds.push(request);
        if (this.gate) await this.gate;
        const answer = this.refundAnswer ?? { status: 'succeeded', processor_reference: `ref_${request.refund_id}` };
        if (answer instanceof Error) throw answer;
        return answer;
      },
      abandon: async () => 'cancelled',
      lookUp: async () => ({ status: 'pending' }),
    };
  }
}

/** Test cards by their last digit: …42 succeeds, …02 declines, anything else throws (processor down). */
export class FakeCardProcessor implements CardProcessor {
  readonly payments: CardPayment[] = [];
  /** While set, authorisations wait for it (a payment in flight). */
  gate: Promise<void> | null = null;
  testCards(): TestCard[] {
    return [];
  }
  async authorise(payment: CardPayment, card: ValidCard): Promise<CardResult> {
    this.payments.push(payment);
    await this.gate;
    const summary = { brand: 'visa', last4: card.number.slice(-4) };
    if (card.number.endsWith('4242') || card.number.endsWith('0341'))
      return { approved: true, processor_reference: 'sbx_ok', card: summary };
    if (card.number.endsWith('0002'))
      return { approved: false, decline_code: 'card_declined', message: 'Your card was declined.', card: summary };
    throw new PlatformError('SERVICE_UNAVAILABLE');
  }
  /** …0341 pays on the page and declines off-session; anything else saved pays off-session. */
  saveCard(card: ValidCard): SandboxSavedCard {
    return this.saveTestCard(card.number);
  }
  saveTestCard(cardNumber: string): SandboxSavedCard {
    const off_session = cardNumber.endsWith('0341')
      ? { approved: false as const, decline_code: 'card_declined', message: 'Your card was declined.' }
      : { approved: true as const };
    return { brand: 'visa', last4: cardNumber.slice(-4), off_session };
  }
  readonly offSession: SavedCardPayment[] = [];
  async chargeSaved(
    payment: SavedCardPayment,
    card: SavedCard,
    options: { customerPresent: boolean },
  ): Promise<CardResult> {
    this.offSession.push(payment);
    const summary = { brand: card.brand, last4: card.last4 };
    if (isProcessorSavedCard(card)) throw new PlatformError('GATEWAY_NOT_CONFIGURED');
    if (card.off_session.approved || options.customerPresent)
      return { approved: true, processor_reference: 'sbx_off', card: summary };
    const { decline_code, message } = card.off_session;
    return { approved: false as const, decline_code, message, card: summary };
  }
}
