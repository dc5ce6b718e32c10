import { SandboxCardProcessor, TEST_CARDS } from './sandbox-cards.adapter';
import { validateCard } from './cards';
import { codeOf } from '../errors.test-util';

const now = new Date('2026-05-01T12:00:00Z');
const card = (number: string, expiry = '12/34', cvc = '123') => validateCard({ number, expiry, cvc }, now);

describe('checkout card validation', () => {
  it('accepts every documented test card (Luhn-valid), with spaces or dashes', () => {
    for (const c of TEST_CARDS) expect(card(c.number).number).toBe(c.number.replace(/\s/g, ''));
    expect(card('4242-4242-4242-4242').number).toBe('4242424242424242');
  });
  it('refuses a bad number, a past or malformed expiry and a bad CVC', () => {
    expect(codeOf(() => card('4242424242424241'))).toEqual(['VALIDATION_FAILED', 'card.number']);
    expect(codeOf(() => card('4242'))).toEqual(['VALIDATION_FAILED', 'card.number']);
    expect(codeOf(() => card('4242424242424242', '04/26'))).toEqual(['VALIDATION_FAILED', 'card.expiry']);
    expect(codeOf(() => card('4242424242424242', '13/30'))).toEqual(['VALIDATION_FAILED', 'card.expiry']);
    expect(codeOf(() => card('4242424242424242', 'soon'))).toEqual(['VALIDATION_FAILED', 'card.expiry']);
    expect(codeOf(() => card('4242424242424242', '12/34', '12'))).toEqual(['VALIDATION_FAILED', 'card.cvc']);
    // The current month is still valid; YYYY works too.
    expect(card('4242424242424242', '05/2026').exp_year).toBe(2026);
  });
  it('bounds every field before matching, so a huge input is refused at once', () => {
    const started = Date.now();
    expect(codeOf(() => card('4'.repeat(1_000_000)))).toEqual(['VALIDATION_FAILED', 'card.number']);
    expect(codeOf(() => card('4242424242424242', ' '.repeat(100_000) + '12/34'))).toEqual([
      'VALIDATION_FAILED',
      'card.expiry',
    ]);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('sandbox test cards', () => {
  const processor = new SandboxCardProcessor({ processingDelayMs: 2_000, sleep: async () => undefined });
  const pay = (number: string) =>
    processor.authorise(
      { charge_id: 'ch_1', group: 'card', mode: 'sandbox', amount: { amount: 100, currency: 'USD' } },
      card(number),
    );
  it('are deterministic', async () => {
    expect(await pay('4242424242424242')).toMatchObject({ approved: true, card: { brand: 'visa', last4: '4242' } });
    expect(await pay('4000000000000002')).toMatchObject({ approved: false, decline_code: 'card_declined' });
    expect(await pay('4000000000009995')).toMatchObject({ approved: false, decline_code: 'insufficient_funds' });
    expect(await pay('4000000000000119')).toMatchObject({ approved: false, decline_code: 'processing_error' });
    // A real-looking card is never charged in sandbox.
    expect(await pay('4111111111111111')).toMatchObject({ approved: false, decline_code: 'card_declined' });
    expect(processor.testCards('live')).toEqual([]);
  });
  it('refuses live mode', async () => {
    await expect(
      processor.authorise(
        { charge_id: 'ch_1', group: 'card', mode: 'live', amount: { amount: 100, currency: 'USD' } },
        card('4242424242424242'),
      ),
    ).rejects.toMatchObject({ code: 'GATEWAY_NOT_CONFIGURED' });
  });
});
