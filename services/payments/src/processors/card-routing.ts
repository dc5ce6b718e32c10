import { PlatformError, type Mode } from '@ppay/kernel';
import {
  isProcessorSavedCard,
  type CardPayment,
  type CardResult,
  type SavedCard,
  type SavedCardPayment,
  type TestCard,
  type ValidCard,
} from './cards';
import type { CardProcessor, SavedCardCharger } from './ports';

/**
 * The card processor payments uses: the sandbox one for everything it does (test cards, the hosted
 * page's authorisations, saving sandbox cards), and for a saved card's off-session charge the processor
 * that holds the card: a sandbox card in sandbox → the sandbox processor; a live processor's card in live
 * → that processor's charger when it is configured, else GATEWAY_NOT_CONFIGURED. A card of one kind in the
 * other mode can only be a broken record (payment methods are stored per mode and saved by their own
 * mode's checkout): refused before any processor is asked, never charged by the wrong one
 * (docs/decisions.md S36).
 */
export class RoutedCardProcessor implements CardProcessor {
  private readonly live: ReadonlyMap<string, SavedCardCharger>;

  constructor(
    private readonly sandbox: CardProcessor,
    liveChargers: readonly SavedCardCharger[],
  ) {
    this.live = new Map(liveChargers.map((c) => [c.processor, c]));
  }

  testCards(mode: Mode): TestCard[] {
    return this.sandbox.testCards(mode);
  }

  authorise(payment: CardPayment, card: ValidCard): Promise<CardResult> {
    return this.sandbox.authorise(payment, card);
  }

  saveCard(card: ValidCard): SavedCard {
    return this.sandbox.saveCard(card);
  }

  saveTestCard(cardNumber: string): SavedCard {
    return this.sandbox.saveTestCard(cardNumber);
  }

  async chargeSaved(
    payment: SavedCardPayment,
    card: SavedCard,
    options: { customerPresent: boolean },
  ): Promise<CardResult> {
    const live = payment.mode === 'live';
    if (!isProcessorSavedCard(card)) {
      if (live) throw refused(payment, 'a sandbox card cannot be charged in live mode');
      return this.sandbox.chargeSaved(payment, card, options);
    }
    if (!live) throw refused(payment, `a card saved at ${card.processor} cannot be charged in sandbox mode`);
    const charger = this.live.get(card.processor);
    if (!charger) {
      throw new PlatformError('GATEWAY_NOT_CONFIGURED', undefined, {
        detail: `live off-session charges of cards saved at ${card.processor} are not configured`,
      });
    }
    // A live card is always charged off-session: the customer's own payment was the checkout's.
    return charger.chargeSaved(payment, card);
  }
}

function refused(payment: SavedCardPayment, why: string): PlatformError {
  return new PlatformError('INTERNAL', `charge ${payment.charge_id}: ${why}; nothing was charged`);
}
