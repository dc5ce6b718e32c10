import { PlatformError, type Mode } from '@ppay/kernel';
import type { SavedCard } from '../processors/cards';
import type { CardProcessor } from '../processors/ports';
import { newPaymentMethod, type PaymentMethodRecord } from './payment-method';
import type { PaymentMethodRepository } from './ports';

/** Saved payment methods: a card kept from a subscription checkout, or a sandbox test card. */
export class PaymentMethodService {
  constructor(
    private readonly deps: { methods: PaymentMethodRepository; cards: Pick<CardProcessor, 'saveTestCard'> },
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A checkout session paid with this card: save it for renewals (one method per session, first save wins). */
  async saveFromCheckout(input: {
    session_id: string;
    merchant_id: number;
    mode: Mode;
    customer_email: string;
    card: SavedCard;
  }): Promise<PaymentMethodRecord> {
    return this.deps.methods.insertOrGetBySession(
      newPaymentMethod(
        {
          merchant_id: input.merchant_id,
          mode: input.mode,
          customer_email: input.customer_email,
          card: input.card,
          origin_session_id: input.session_id,
        },
        this.now(),
      ),
    );
  }

  /** Sandbox helper: a test card saved without a checkout (declining cards are refused, as a checkout would). */
  async createSandbox(merchantId: number, mode: Mode, cardNumber: string, email: string): Promise<PaymentMethodRecord> {
    if (mode !== 'sandbox') {
      throw new PlatformError('PERMISSION_DENIED', 'Sandbox test helpers are only available with sandbox keys');
    }
    const record = newPaymentMethod(
      {
        merchant_id: merchantId,
        mode,
        customer_email: email,
        card: this.deps.cards.saveTestCard(cardNumber),
        origin_session_id: null,
      },
      this.now(),
    );
    await this.deps.methods.insert(record);
    return record;
  }
}
