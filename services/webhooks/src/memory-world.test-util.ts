import type { EventEnvelope, PaymentOutcome } from '@ppay/kernel';
import { SPEC_POLICY, type DeliveryPolicy } from './deliveries/delivery-policy';
import { DeliveryWorker } from './deliveries/delivery-worker';
import { EventFanOut } from './deliveries/fan-out';
import { MemoryDeliveryStore, MemoryEventStore, MemoryKeys, ScriptedSender } from './memory-ports.test-util';
import { EventLog } from './webhook-events/event-log';

/**
 * The webhook service on in-memory ports, in real time: the fan-out, the delivery worker and the
 * partner's event log, fed payment events as JetStream would deliver them.
 */

const outcome = (over: Partial<PaymentOutcome> = {}): PaymentOutcome => ({
  charge_id: 'ch_1',
  transaction_id: 'txn_1',
  merchant_id: 1,
  status: 'succeeded',
  payment_type: 'one_time',
  gateway: 'cardgateway',
  reference: 'order-1',
  amount: { amount: 10_150, currency: 'NGN' },
  total: { amount: 10_000, currency: 'NGN' },
  transaction_fee: { amount: 150, currency: 'NGN' },
  customer_pays_fees: true,
  breakdown: {
    customer_paid: { amount: 10_150, currency: 'NGN' },
    merchant_gross: { amount: 10_000, currency: 'NGN' },
    merchant_net: { amount: 10_000, currency: 'NGN' },
    fees: {
      platform_fee: { amount: 150, currency: 'NGN' },
      gateway_fee: { amount: 0, currency: 'NGN' },
      total: { amount: 150, currency: 'NGN' },
    },
  },
  customer: { email: 'c@example.com', first_name: 'Ada', last_name: 'Obi', country: 'NG' },
  sub_merchant_id: null,
  failure_reason: null,
  completed_at: '2026-05-01T10:00:00.000Z',
  session_id: null,
  product: null,
  subscription_frequency_key: null,
  metadata: {},
  installment: null,
  variation: null,
  quantity: null,
  ...over,
});

export const paymentEvent = (id: string, over: Partial<PaymentOutcome> = {}, mode: 'sandbox' | 'live' = 'sandbox') =>
  ({
    event_id: id,
    subject: 'payments.payment.succeeded',
    occurred_at: '2026-05-01T10:00:00.000Z',
    merchant_id: over.merchant_id ?? 1,
    mode,
    data: outcome(over),
  }) as EventEnvelope;

export function setup(policy: Partial<DeliveryPolicy> = {}, options: { handOff?: boolean } = {}) {
  const events = new MemoryEventStore();
  const deliveries = new MemoryDeliveryStore();
  const keys = new MemoryKeys();
  const sender = new ScriptedSender();
  /** How each first attempt got its slot (DeliveryMetricsPort.firstAttempt), in order. */
  const firstAttempts: string[] = [];
  const metrics = {
    attempt: () => undefined,
    finished: () => undefined,
    firstAttempt: (p: string) => firstAttempts.push(p),
  };
  const worker = new DeliveryWorker(
    { deliveries, events, keys, sender, metrics },
    {
      ...SPEC_POLICY,
      retryDelayMs: 30,
      concurrency: 8,
      perKeyConcurrency: 2,
      leaseMs: 60_000,
      pollIntervalMs: 10,
      allowPrivateTargets: true,
      ...policy,
    },
  );
  const fanOut = new EventFanOut({ events, deliveries, keys, ...(options.handOff ? { dispatch: worker } : {}) }, () =>
    worker.wake(),
  );
  const log = new EventLog(
    { events, deliveries, keys, sender, fanOut },
    { allowPrivateTargets: true, timeoutMs: 10_000 },
    () => worker.wake(),
  );
  // Each call as a new JetStream message would arrive: the next stream sequence, unless given.
  let streamSequence = 0;
  const ingest = (envelope: EventEnvelope, sequence = ++streamSequence) => fanOut.ingest(envelope, sequence);
  return { events, deliveries, keys, sender, worker, fanOut, log, ingest, firstAttempts };
}

/**
 * Receivers whose URL `hangs` says hang until `release`; the others answer 200 at once. `inFlight`
 * and `maxInFlight` count the hanging sends.
 */
export function hangingReceivers(t: ReturnType<typeof setup>, hangs: (url: string) => boolean) {
  let release!: () => void;
  const hang = new Promise<void>((r) => (release = r));
  let inFlight = 0;
  let maxInFlight = 0;
  t.sender.send = async (input) => {
    t.sender.sent.push(input);
    if (hangs(input.url)) {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await hang;
      inFlight--;
    }
    return { status: 200, success: true, duration_ms: 1, error_class: null, response_excerpt: '' };
  };
  return { release, inFlight: () => inFlight, maxInFlight: () => maxInFlight };
}

/**
 * Key `slow` (merchant 1), whose receiver hangs until `release`, and key `fast` (merchant 2), which
 * answers at once; `maxSlow` is the most sends the hanging one had in flight at once.
 */
export function hangingAndFastReceivers(t: ReturnType<typeof setup>) {
  t.keys.add({ key_id: 'slow', webhook_url: 'http://127.0.0.1:1/slow' });
  t.keys.add({ key_id: 'fast', merchant_id: 2, webhook_url: 'http://127.0.0.1:1/fast' });
  const { release, maxInFlight } = hangingReceivers(t, (url) => url.endsWith('/slow'));
  return { release, maxSlow: maxInFlight };
}

/** The test's one delivery, once it has succeeded and the worker has stopped. */
export async function onlyDeliveryOnceSucceeded(t: ReturnType<typeof setup>) {
  await until(() => [...t.deliveries.rows.values()][0]?.status === 'succeeded');
  await t.worker.stop();
  return [...t.deliveries.rows.values()][0]!;
}

/** Waits until `check` holds; fails the test when it does not within `ms`. */
export async function until(check: () => boolean, ms = 2_000) {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
  if (!check()) throw new Error(`not true within ${ms} ms: ${check.toString()}`);
}
