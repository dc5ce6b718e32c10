import { PlatformError } from '@ppay/kernel';
import type { DisputeProcessor } from '../disputes/ports';
import type { DisputeRecord } from '../disputes/dispute';
import type { CardResult, ProcessorSavedCard, SavedCardPayment } from './cards';
import { ProcessorGuard } from '@ppay/runtime';
import { GuardedCharger, GuardedDisputeProcessor } from './processor-guard.adapter';
import type { SavedCardCharger } from './ports';

const options = { timeoutMs: 50, resetTimeoutMs: 60_000 };
const payment = { charge_id: 'ch_1', mode: 'live' } as SavedCardPayment;
const card = { processor: 'stripe' } as ProcessorSavedCard;
const declined: CardResult = {
  approved: false,
  decline_code: 'card_declined',
  message: 'Your card was declined',
  card: { brand: 'visa', last4: '4242' } as never,
};

describe('processor guard', () => {
  it('maps no answer in time to UPSTREAM_TIMEOUT and any other failure to SERVICE_UNAVAILABLE', async () => {
    const guard = new ProcessorGuard('stripe', options);
    await expect(guard.call('a', () => new Promise(() => undefined))).rejects.toMatchObject({
      code: 'UPSTREAM_TIMEOUT',
    });
    await expect(guard.call('b', () => Promise.reject(new Error('socket hang up')))).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      detail: expect.stringContaining('stripe is unavailable'),
    });
    // The adapter's own answers in the platform's terms pass through as they are.
    const own = new PlatformError('VALIDATION_FAILED', 'bad amount');
    await expect(guard.call('c', () => Promise.reject(own))).rejects.toBe(own);
    expect(await guard.call('d', async () => 42)).toBe(42);
  });

  it('opens after repeated failures of one kind of call: nothing more is sent, other kinds still are', async () => {
    const guard = new ProcessorGuard('stripe', options);
    const failing = jest.fn(() => Promise.reject(new Error('503')));
    for (let i = 0; i < 5; i++) await expect(guard.call('refund', failing)).rejects.toBeDefined();
    expect(failing).toHaveBeenCalledTimes(5);
    await expect(guard.call('refund', failing)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(failing).toHaveBeenCalledTimes(5); // the open breaker sent nothing
    expect(await guard.call('initialise', async () => 'sent')).toBe('sent');
  });

  it('guards off-session charges: a decline is an answer, a hung processor an unknown outcome', async () => {
    const inner: SavedCardCharger = { processor: 'stripe', chargeSaved: jest.fn(async () => declined) };
    const charger = new GuardedCharger(inner, options);
    expect(charger.processor).toBe('stripe');
    for (let i = 0; i < 8; i++) expect(await charger.chargeSaved(payment, card)).toEqual(declined);
    expect(inner.chargeSaved).toHaveBeenCalledTimes(8); // declines never open the breaker

    const hung = new GuardedCharger({ processor: 'stripe', chargeSaved: () => new Promise(() => undefined) }, options);
    await expect(hung.chargeSaved(payment, card)).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
  });

  it('guards dispute calls', async () => {
    const inner: DisputeProcessor = {
      submitEvidence: jest.fn(() => Promise.reject(new Error('ECONNRESET'))),
      accept: jest.fn(async () => undefined),
    };
    const disputes = new GuardedDisputeProcessor(inner, 'stripe', options);
    const dispute = { dispute_id: 'dp_1' } as DisputeRecord;
    await expect(disputes.submitEvidence(dispute)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await expect(disputes.accept(dispute)).resolves.toBeUndefined();
    expect(inner.accept).toHaveBeenCalledWith(dispute);
  });
});
