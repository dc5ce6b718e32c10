import { testCharge, testFees } from '../charges/charge.test-util';
import { MemoryCharges } from '../memory-ports.test-util';
import type { ProcessorAdapter } from '../processors/ports';
import { StaticProcessorRegistry } from '../processors/sandbox-processors.adapter';
import { RefundService } from './refunds';

/** A live processor built for charges only: a refund of its charge is refused before anything is reserved. */
describe('refunds of a live charge whose processor cannot refund yet', () => {
  it('answer GATEWAY_NOT_CONFIGURED, reserve nothing and never reach a processor', async () => {
    const live: ProcessorAdapter = {
      id: 'card_gateway',
      mode: 'live',
      features: ['charges'],
      initialise: jest.fn(),
      initialiseCheckout: jest.fn(),
      checkoutPayment: jest.fn(),
      refund: jest.fn(),
      abandon: jest.fn(),
      lookUp: jest.fn(),
    };
    const processors = new StaticProcessorRegistry({
      timeoutMs: 1_000,
      resetTimeoutMs: 1_000,
      cardPublishableKey: 'pk',
      live: { card: live },
    });
    const charges = new MemoryCharges();
    await charges.insert(
      testCharge({
        charge_id: 'ch_live',
        mode: 'live',
        status: 'succeeded',
        processor_group: 'card',
        payment_gateway: 'card_gateway',
        processor_reference: 'pi_1',
        amount: { amount: 2_500, currency: 'USD' },
        total: { amount: 2_500, currency: 'USD' },
        fee_details: testFees('USD', 2_500, 100),
        amount_refunded: { amount: 0, currency: 'USD' },
        amount_disputed: { amount: 0, currency: 'USD' },
      }),
    );
    const refunds = new RefundService({ charges, processors }, { staleAfterMs: 60_000 });
    await expect(refunds.create(1000, 'live', 'ch_live', {}, {})).rejects.toMatchObject({
      code: 'GATEWAY_NOT_CONFIGURED',
      message: 'Live refunds are not enabled for this currency yet',
    });
    expect(charges.docs.get('ch_live')!.refunds).toEqual([]);
    expect(live.refund).not.toHaveBeenCalled();
  });
});
