import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import Stripe from 'stripe';
import { eventually, http, type TestPlatform } from '../support/platform';
import { stripeEventJson } from '../support/stripe-mock';
import type { ChaosApi, Until200 } from './client';
import { PAYMENT_REASONS } from './disputes';

/**
 * Live card payments in the fault suite: charges of a live key go to stripe-mock (the platform's
 * STRIPE_* point at it), and their outcomes arrive as Stripe's signed events on the inbound route —
 * each delivered twice, a success followed by an earlier attempt's failure, the deliveries racing
 * each other and the kills. The client retries a delivery until it is acknowledged, as Stripe does,
 * signing each try afresh. Afterwards each charge has its outcome and exactly its ledger entries.
 */
export interface LiveJob {
  index: number;
  outcome: 'succeed' | 'fail';
  chargeKey: string;
  chargeId?: string;
  status?: string;
}

export interface LiveMerchant {
  key: string;
  merchantId: number;
  /** The ledger entries of one live charge, measured without faults, as [merchant_id, currency, amount]. */
  entries: [number, string, number][];
}

interface Client {
  t: TestPlatform;
  api: ChaosApi;
  until200: Until200;
  payments: Connection;
  webhookSecret: string;
}

const BODY = {
  amount: 2_500,
  currency: 'USD',
  total_amount: 2_500,
  total_currency: 'USD',
  customer: { email: 'buyer@example.com' },
};

export function planLive(count: number, random: () => number): LiveJob[] {
  return Array.from({ length: count }, (_, index) => ({
    index,
    outcome: random() < 0.85 ? 'succeed' : 'fail',
    chargeKey: randomUUID(),
  }));
}

async function ledgerOf(payments: Connection, chargeIds: string[]) {
  const docs = await payments
    .collection('ledger_entries')
    .find({ charge_id: { $in: chargeIds }, reason: { $in: PAYMENT_REASONS } })
    .toArray();
  const by = new Map<string, [number, string, number][]>();
  for (const d of docs) {
    const list = by.get(d.charge_id) ?? [];
    list.push([d.merchant_id, d.amount.currency, d.amount.amount]);
    by.set(d.charge_id, list);
  }
  for (const list of by.values()) list.sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));
  return by;
}

/** The event Stripe sends for a charge's PaymentIntent: what it was asked for, with our metadata. */
function paymentEvent(id: string, type: string, chargeId: string, merchantId: number, paymentIntent: string) {
  return stripeEventJson(id, type, {
    id: paymentIntent,
    object: 'payment_intent',
    amount: BODY.amount,
    currency: 'usd',
    status: type === 'payment_intent.succeeded' ? 'succeeded' : 'requires_payment_method',
    metadata: { charge_id: chargeId, merchant_id: String(merchantId), mode: 'live' },
    last_payment_error:
      type === 'payment_intent.succeeded' ? null : { code: 'card_declined', decline_code: 'generic_decline' },
  });
}

async function deliver(c: Client, label: string, payload: string, deadline: number) {
  await c.until200(
    label,
    () =>
      http(c.t.url, 'POST', '/api/v1/processors/stripe/webhooks', {
        headers: {
          'content-type': 'application/json',
          'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: c.webhookSecret }),
        },
        rawBody: payload,
      }),
    deadline,
  );
}

async function paymentIntentOf(c: Client, chargeId: string): Promise<string> {
  const stored = await c.payments.collection('charges').findOne({ _id: chargeId as never });
  const reference = stored?.processor_reference;
  if (typeof reference !== 'string') throw new Error(`live charge ${chargeId} has no PaymentIntent`);
  return reference;
}

/** A live US merchant, and the ledger entries one of its live charges makes when nothing fails. */
export async function liveMerchant(c: Client): Promise<LiveMerchant> {
  const m = await c.t.merchant({ country: 'US', currency: 'USD' });
  const created = await http(c.t.url, 'POST', '/api/v1/partner/create-api-key', {
    headers: { 'x-id-key': m.user_token },
    body: { type: 'live' },
  });
  if (created.status !== 201) throw new Error(`live key: ${created.status} ${JSON.stringify(created.body)}`);
  const merchant: LiveMerchant = { key: created.body.data.api_key, merchantId: m.merchant_id, entries: [] };
  const job: LiveJob = { index: -1, outcome: 'succeed', chargeKey: randomUUID() };
  await payLive(c, merchant, job, () => 0.9, Date.now() + 60_000);
  const ledger = async () => (await ledgerOf(c.payments, [job.chargeId!])).get(job.chargeId!) ?? [];
  if (!(await eventually(async () => (await ledger()).length > 0, 20_000)))
    throw new Error('calm live charge not credited');
  await new Promise((r) => setTimeout(r, 500));
  merchant.entries = await ledger();
  return merchant;
}

/** One live charge and its events: each twice, a success then an earlier attempt's failure, racing. */
export async function payLive(c: Client, m: LiveMerchant, job: LiveJob, random: () => number, deadline: number) {
  const created = await c.until200(
    `live charge ${job.index}`,
    () =>
      c.api(
        m.key,
        'POST',
        '/payments/charge',
        { ...BODY, reference: `live-${job.chargeKey}` },
        { 'idempotency-key': job.chargeKey },
      ),
    deadline,
  );
  const chargeId = created.body.data.charge_id as string;
  job.chargeId = chargeId;
  const paymentIntent = await paymentIntentOf(c, chargeId);
  const event = (suffix: string, type: string) =>
    paymentEvent(`evt_${chargeId}_${suffix}`, type, chargeId, m.merchantId, paymentIntent);
  if (job.outcome === 'succeed') {
    const succeeded = event('succeeded', 'payment_intent.succeeded');
    await deliver(c, `live success ${job.index}`, succeeded, deadline);
    const rest = [succeeded];
    if (random() < 0.5) rest.push(event('earlier_failure', 'payment_intent.payment_failed'));
    await Promise.all(rest.map((p, k) => deliver(c, `live event ${job.index}.${k}`, p, deadline)));
  } else {
    const failed = event('failed', 'payment_intent.payment_failed');
    await Promise.all([failed, failed].map((p, k) => deliver(c, `live failure ${job.index}.${k}`, p, deadline)));
  }
}

/** Each live charge in its outcome's status, with exactly its ledger entries (none when failed). */
export async function checkLive(c: Pick<Client, 'api' | 'payments'>, m: LiveMerchant, jobs: LiveJob[]) {
  const ids = jobs.map((j) => j.chargeId!);
  const want = jobs.filter((j) => j.outcome === 'succeed').length * m.entries.length;
  const count = () =>
    c.payments
      .collection('ledger_entries')
      .countDocuments({ charge_id: { $in: ids }, reason: { $in: PAYMENT_REASONS } });
  await eventually(async () => (await count()) >= want, 120_000, 500);
  const statusOf = async (j: LiveJob) =>
    (await c.api(m.key, 'GET', `/payments/charges/${j.chargeId}`)).body.data?.status;
  await eventually(
    async () => {
      for (const j of jobs)
        if (j.status !== (j.outcome === 'succeed' ? 'succeeded' : 'failed')) j.status = await statusOf(j);
      return jobs.every((j) => j.status === (j.outcome === 'succeed' ? 'succeeded' : 'failed'));
    },
    60_000,
    1_000,
  );
  const ledger = await ledgerOf(c.payments, ids);
  // How the inbox took the deliveries (applied, duplicate, superseded…): shown, not asserted.
  const inbox: Record<string, number> = {};
  for (const e of await c.payments
    .collection('processor_events')
    .find({ 'event.charge_id': { $in: ids } })
    .toArray())
    inbox[e.status] = (inbox[e.status] ?? 0) + 1;
  const result = { statusWrong: 0, missing: 0, duplicated: 0, wrong: 0, creditedFailed: 0 };
  for (const j of jobs) {
    if (j.status !== (j.outcome === 'succeed' ? 'succeeded' : 'failed')) result.statusWrong++;
    const got = ledger.get(j.chargeId!) ?? [];
    if (j.outcome === 'fail') {
      if (got.length > 0) result.creditedFailed++;
      continue;
    }
    result.missing += Math.max(0, m.entries.length - got.length);
    result.duplicated += Math.max(0, got.length - m.entries.length);
    if (got.length === m.entries.length && JSON.stringify(got) !== JSON.stringify(m.entries)) result.wrong++;
  }
  return { result, inbox };
}
