import { StaticProcessorRegistry } from './sandbox-processors.adapter';
import type { ProcessorAdapter } from './ports';

const intent = {
  charge_id: 'ch_1',
  merchant_id: 1001,
  mode: 'sandbox' as const,
  amount: { amount: 1000, currency: 'USD' },
  customer_email: 'c@example.com',
  description: '',
  callback_url: '',
};

describe('processor registry', () => {
  it('card route returns client secret, publishable key and connected account; others do not', async () => {
    const registry = new StaticProcessorRegistry({
      timeoutMs: 1000,
      resetTimeoutMs: 1000,
      cardPublishableKey: 'pk_sbx_card',
    });
    const card = await registry.adapterFor('card', 'sandbox').initialise(intent);
    expect(card).toMatchObject({ publishable_key: 'pk_sbx_card', gateway_account_id: 'acct_sbx_1001' });
    expect(card.client_secret).toMatch(/^sbx_card_[0-9a-f]{20}_secret_[0-9a-f]{24}$/);
    expect(await registry.adapterFor('card', 'sandbox').initialise(intent)).toEqual(card); // deterministic
    const naira = await registry.adapterFor('naira', 'sandbox').initialise(intent);
    expect(naira.client_secret).toBeUndefined();
    expect(registry.adapterFor('regional', 'sandbox').id).toBe('regional_gateway');
  });

  it('sandbox callers never reach a live adapter, and live without an adapter is refused', async () => {
    const live: ProcessorAdapter = {
      id: 'card_gateway',
      mode: 'live',
      features: ['charges'],
      initialise: jest.fn(async () => ({ processor_reference: 'live_1' })),
      initialiseCheckout: jest.fn(),
      checkoutPayment: jest.fn(),
      refund: jest.fn(async () => ({ status: 'succeeded' as const, processor_reference: 'live_re_1' })),
      abandon: jest.fn(async () => 'cancelled' as const),
      lookUp: jest.fn(async () => ({ status: 'pending' as const })),
    };
    const registry = new StaticProcessorRegistry({
      timeoutMs: 1000,
      resetTimeoutMs: 1000,
      cardPublishableKey: 'pk',
      live: { card: live },
    });
    await registry.adapterFor('card', 'sandbox').initialise(intent);
    expect(live.initialise).not.toHaveBeenCalled();
    expect(registry.adapterFor('card', 'live').mode).toBe('live');
    expect(() => registry.adapterFor('naira', 'live')).toThrow(/Live payments are not enabled/);
    // A live adapter built for charges only: its refunds and hosted checkout are refused, never sent elsewhere.
    expect(() => registry.adapterFor('card', 'live', 'refunds')).toThrow(
      expect.objectContaining({
        code: 'GATEWAY_NOT_CONFIGURED',
        message: 'Live refunds are not enabled for this currency yet',
      }),
    );
    expect(() => registry.adapterFor('card', 'live', 'checkout')).toThrow(
      expect.objectContaining({ code: 'GATEWAY_NOT_CONFIGURED' }),
    );
    expect(registry.adapterFor('card', 'sandbox', 'refunds').mode).toBe('sandbox');
    expect(
      () =>
        new StaticProcessorRegistry({
          timeoutMs: 1,
          resetTimeoutMs: 1,
          cardPublishableKey: 'pk',
          live: { card: { ...live, mode: 'sandbox' } },
        }),
    ).toThrow();
  });

  it('a hung processor times out as UPSTREAM_TIMEOUT (outcome unknown) instead of hanging the charge', async () => {
    const hung: ProcessorAdapter = {
      id: 'card_gateway',
      mode: 'live',
      features: ['charges'],
      initialise: () => new Promise(() => undefined),
      initialiseCheckout: () => new Promise(() => undefined),
      checkoutPayment: () => new Promise(() => undefined),
      refund: () => new Promise(() => undefined),
      abandon: () => new Promise(() => undefined),
      lookUp: () => new Promise(() => undefined),
    };
    const registry = new StaticProcessorRegistry({
      timeoutMs: 50,
      resetTimeoutMs: 1000,
      cardPublishableKey: 'pk',
      live: { card: hung },
    });
    await expect(registry.adapterFor('card', 'live').initialise({ ...intent, mode: 'live' })).rejects.toMatchObject({
      code: 'UPSTREAM_TIMEOUT',
    });
  });
});
