import { money, type Mode } from '@ppay/kernel';
import type { CardResult, ProcessorSavedCard, SavedCardPayment } from './cards';
import { RoutedCardProcessor } from './card-routing';
import type { SavedCardCharger } from './ports';
import { FakeCardProcessor } from './processors.test-util';

const payment = (mode: Mode): SavedCardPayment => ({
  charge_id: 'ch_1',
  group: 'card',
  mode,
  amount: money(2_500, 'USD'),
  merchant_id: 1000,
  created_at: new Date('2026-12-01T10:00:00Z'),
  asked_before: false,
});
const SANDBOX_CARD = { brand: 'visa', last4: '4242', off_session: { approved: true as const } };
const STRIPE_CARD: ProcessorSavedCard = {
  brand: 'visa',
  last4: '4242',
  processor: 'stripe',
  customer_reference: 'cus_1',
  method_reference: 'pm_1',
};

class RecordingCharger implements SavedCardCharger {
  readonly processor = 'stripe';
  readonly asked: SavedCardPayment[] = [];
  async chargeSaved(p: SavedCardPayment, card: ProcessorSavedCard): Promise<CardResult> {
    this.asked.push(p);
    return { approved: true, processor_reference: 'pi_1', card: { brand: card.brand, last4: card.last4 } };
  }
}

/** Which processor charges a saved card: the one that holds it, in its own mode only (S36). */
describe('RoutedCardProcessor', () => {
  it('a sandbox card in sandbox goes to the sandbox processor; a Stripe card in live to Stripe', async () => {
    const sandbox = new FakeCardProcessor();
    const stripe = new RecordingCharger();
    const cards = new RoutedCardProcessor(sandbox, [stripe]);
    expect(await cards.chargeSaved(payment('sandbox'), SANDBOX_CARD, { customerPresent: false })).toMatchObject({
      approved: true,
      processor_reference: 'sbx_off',
    });
    expect(sandbox.offSession).toHaveLength(1);
    expect(stripe.asked).toHaveLength(0);
    expect(await cards.chargeSaved(payment('live'), STRIPE_CARD, { customerPresent: false })).toMatchObject({
      processor_reference: 'pi_1',
    });
    expect(stripe.asked).toEqual([payment('live')]);
    expect(sandbox.offSession).toHaveLength(1);
  });

  it('a live card without its processor configured is GATEWAY_NOT_CONFIGURED; a mix of mode and card is refused', async () => {
    const sandbox = new FakeCardProcessor();
    const stripe = new RecordingCharger();
    const unconfigured = new RoutedCardProcessor(sandbox, []);
    await expect(
      unconfigured.chargeSaved(payment('live'), STRIPE_CARD, { customerPresent: false }),
    ).rejects.toMatchObject({ code: 'GATEWAY_NOT_CONFIGURED' });
    const other = { ...STRIPE_CARD, processor: 'elsewhere' };
    const cards = new RoutedCardProcessor(sandbox, [stripe]);
    await expect(cards.chargeSaved(payment('live'), other, { customerPresent: false })).rejects.toMatchObject({
      code: 'GATEWAY_NOT_CONFIGURED',
    });
    await expect(cards.chargeSaved(payment('live'), SANDBOX_CARD, { customerPresent: false })).rejects.toMatchObject({
      code: 'INTERNAL',
    });
    await expect(cards.chargeSaved(payment('sandbox'), STRIPE_CARD, { customerPresent: false })).rejects.toMatchObject({
      code: 'INTERNAL',
    });
    expect(sandbox.offSession).toHaveLength(0);
    expect(stripe.asked).toHaveLength(0);
  });

  it('everything else is the sandbox processor’s, as before', () => {
    const sandbox = new FakeCardProcessor();
    const cards = new RoutedCardProcessor(sandbox, [new RecordingCharger()]);
    expect(cards.saveTestCard('4000000000000341')).toEqual(sandbox.saveTestCard('4000000000000341'));
    expect(cards.testCards('sandbox')).toEqual(sandbox.testCards());
  });
});
