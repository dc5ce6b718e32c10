import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import { newRequestId } from '@ppay/kernel';
import { callerToMetadata, connectMongo, FERRETDB_SQL_PUSHDOWN, createLogger, ServiceClient } from '@ppay/runtime';
import { loadPlatformProto, type types } from '@ppay/proto';
import type { Connection } from 'mongoose';
import type { CaseResult } from './table';
import { createMerchant, type NewMerchant } from '../merchants';
import type { Platform } from '../platform';
import { loadOrCreateSecrets } from '../secrets';
import { BENCH_STATE_DIR, startBenchPlatform } from './bench-infra';
import { dbSnapshot, dbWork, fmtDbWork, type DbSnapshot } from './db-work';
import { cpuSecondsOfProcesses } from './proc';

/**
 * Subscription benchmarks, each against a fresh local platform on loopback, bounded in count
 * and time:
 *  - renewals: N subscriptions fall due at once; the scheduler renews them through payments. Prints
 *    renewals/s, double charges (must be 0), CPU per renewal, and as baseline the same number of
 *    off-session charges asked of payments directly with the scheduler's concurrency.
 *  - subscriptions-list: p50/p99 of a sorted page (GET /subscriptions) for a merchant with 1,000 and one
 *    with 100,000 subscriptions, in the same run, 200 requests each (`BENCH_REQUESTS`) alternating
 *    between them; target ratio ≤ 2.
 */

const DAY = 86_400_000;

export interface Env {
  platform: Platform;
  merchant: NewMerchant;
  subs: Connection;
  payments: Connection;
  /** FerretDB's command counters and every collection's size (db-work.ts). */
  db(): Promise<DbSnapshot>;
  stop(): Promise<void>;
}

export async function startEnv(envFor: Record<string, NodeJS.ProcessEnv>): Promise<Env> {
  const bench = await startBenchPlatform(envFor);
  const { platform, secrets } = bench;
  const merchant = await newMerchant(platform, secrets.AUTH_JWT_SECRET);
  const log = createLogger('bench', 'silent');
  const subs = await connectMongo(bench.mongoUri, 'ppay_subscriptions', log);
  const payments = await connectMongo(bench.mongoUri, 'ppay_payments', log);
  return {
    platform,
    merchant,
    subs,
    payments,
    db: () => dbSnapshot(bench.ferretdbMetricsUrl, bench.mongoUri),
    async stop() {
      await subs.close();
      await payments.close();
      await bench.stop();
    },
  };
}

function newMerchant(platform: Platform, jwtSecret: string) {
  return createMerchant(
    {
      marketplaceAddr: platform.grpcAddress('marketplace'),
      webhooksAddr: platform.grpcAddress('webhooks'),
      jwtSecret,
    },
    { email: `bench${randomBytes(4).toString('hex')}@example.com`, country: 'NG', currency: 'NGN' },
  );
}

/** One real subscription made through the sandbox helper: the template the bench clones. */
async function templateSubscription(env: Env, merchant: NewMerchant, frequency = 'monthly') {
  const res = await fetch(`${env.platform.gatewayUrl}/api/v1/partner/sandbox/subscriptions`, {
    method: 'POST',
    headers: { 'x-api-key': merchant.api_key, 'content-type': 'application/json' },
    body: JSON.stringify({
      amount: 100_000,
      currency: 'NGN',
      product_name: 'Bench box',
      customer: { email: 'bench@example.com' },
      subscription_frequency_key: frequency,
      card_number: '4242 4242 4242 4242',
    }),
  });
  const body = (await res.json()) as { data?: { id: string } };
  if (!res.ok || !body.data) throw new Error(`sandbox subscription failed: ${res.status} ${JSON.stringify(body)}`);
  const doc = await env.subs.collection('subscriptions').findOne({ _id: body.data.id } as never);
  if (!doc) throw new Error('template subscription not stored');
  return doc as unknown as Record<string, unknown> & { _id: string; outbox: unknown[] };
}

export async function insertClones(
  env: Env,
  count: number,
  make: (i: number) => Record<string, unknown>,
  onProgress?: (n: number) => void,
  collection = 'subscriptions',
): Promise<void> {
  const BATCH = 2_000;
  for (let i = 0; i < count; i += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, count - i) }, (_, k) => make(i + k));
    // Ordered: FerretDB writes an ordered batch in one transaction (unordered is one transaction per document).
    await env.subs.collection(collection).insertMany(docs as never[], { ordered: true });
    onProgress?.(i + docs.length);
  }
}

export const say = (line: string) => process.stdout.write(`${line}\n`);

/**
 * Waits (up to `timeoutMs`) until `count` documents of `collection` match `query`, checking each second,
 * and measures the wait: its seconds, the CPU of subscriptions + payments, and the database work. The
 * count command with the pushdown comment is counted in SQL by the local FerretDB (patch 6,
 * scripts/ferretdb/patches/); countDocuments would decode every document in Go each second, competing
 * with the scheduler.
 */
export async function measureUntilCounted(
  env: Env,
  o: { collection: string; query: Record<string, unknown>; count: number; timeoutMs: number; what: string },
) {
  const dbBefore = await env.db();
  const cpuBefore = cpuSecondsOfProcesses(env.platform, ['subscriptions', 'payments']);
  const started = Date.now();
  const counted = async () =>
    Number((await env.subs.db!.command({ count: o.collection, query: o.query, comment: FERRETDB_SQL_PUSHDOWN })).n);
  let done = 0;
  let lastReport = Date.now();
  while (done < o.count && Date.now() - started < o.timeoutMs) {
    await new Promise((r) => setTimeout(r, 1_000));
    done = await counted();
    if (Date.now() - lastReport > 15_000) {
      say(`  … ${done} ${o.what} after ${((Date.now() - started) / 1000).toFixed(0)} s`);
      lastReport = Date.now();
    }
  }
  const seconds = (Date.now() - started) / 1000;
  const cpu = cpuSecondsOfProcesses(env.platform, ['subscriptions', 'payments']) - cpuBefore;
  return { done, seconds, cpu, dbBefore, dbAfter: await env.db() };
}

export async function renewalsBench(): Promise<CaseResult> {
  const count = Number(process.env.BENCH_SUBSCRIPTIONS ?? 10_000);
  const concurrency = Number(process.env.BENCH_SCHEDULER_CONCURRENCY ?? 4);
  const timeoutMs = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 1_800) * 1000;
  const env = await startEnv({
    subscriptions: { SCHEDULER_INTERVAL_MS: '100', SCHEDULER_CONCURRENCY: String(concurrency) },
  });
  try {
    const template = await templateSubscription(env, env.merchant);
    const now = new Date();
    const future = new Date(now.getTime() + 365 * DAY);
    say(`seeding ${count} subscriptions (due far in the future until released)…`);
    await insertClones(env, count, (i) => {
      const id = `sub_bench${String(i).padStart(6, '0')}`;
      return {
        ...template,
        _id: id,
        origin_ref: `id:${id}`,
        next_payment_date: future,
        next_action_at: future,
        wake_at: future,
        lease_owner: null,
        lease_until: new Date(0),
        outbox: [],
      };
    });
    // All of them fall due at once: each now has its renewal due at `now` (period 1 of its anchor).
    // The release is one write (one SQLite transaction on FerretDB): the scheduler sees all of them due at
    // once when it commits, so the clock starts then (on FerretDB the release itself takes a minute or more).
    const releaseStarted = Date.now();
    await env.subs
      .collection('subscriptions')
      .updateMany({ merchant_id: env.merchant.merchant_id, _id: { $ne: template._id } } as never, {
        $set: { next_payment_date: now, next_action_at: now, wake_at: now },
      });
    say(`released ${count} subscriptions in ${((Date.now() - releaseStarted) / 1000).toFixed(1)} s`);
    const { done, seconds, cpu, dbBefore, dbAfter } = await measureUntilCounted(env, {
      collection: 'renewals',
      query: { merchant_id: env.merchant.merchant_id, status: 'paid' },
      count,
      timeoutMs,
      what: 'renewed',
    });
    const db = dbWork(dbBefore, dbAfter, done);

    // Double charges: more than one successful charge for one (subscription, period start).
    const charges = await env.payments
      .collection('charges')
      .find({ merchant_id: env.merchant.merchant_id, status: 'succeeded' }, { projection: { reference_key: 1 } })
      .toArray();
    const perPeriod = new Map<string, number>();
    for (const c of charges) {
      const ref = String(c.reference_key);
      if (!ref.startsWith('sub:')) continue;
      const period = ref.split(':').slice(0, -1).join(':');
      perPeriod.set(period, (perPeriod.get(period) ?? 0) + 1);
    }
    const doubles = [...perPeriod.values()].reduce((n, k) => n + Math.max(0, k - 1), 0);

    // Baseline: the same number of off-session charges asked of payments directly (no scheduler, no
    // subscription writes), with the same concurrency; capped so the bench stays bounded.
    const baselineCount = Math.min(count, Number(process.env.BENCH_BASELINE_CHARGES ?? 2_000));
    const baseline = await directCharges(env, String(template.payment_method_id), baselineCount, concurrency);

    const rate = done / seconds;
    const cores = os.cpus().length;
    say('');
    say(
      `case renewals: ${count} subscriptions falling due at once, renewed by the scheduler (concurrency ${concurrency})`,
    );
    say(`  ${cores} cores shared by every process and the database`);
    say(`  platform  ${rate.toFixed(1).padStart(8)} renewals/s   ${done}/${count} renewed in ${seconds.toFixed(1)} s`);
    say(
      `  baseline  ${baseline.rate.toFixed(1).padStart(8)} charges/s    (${baselineCount} ChargePaymentMethod calls straight to payments)`,
    );
    say(
      `  ratio     ${(rate / baseline.rate).toFixed(2)}x baseline (the scheduler's claim, renewal record and subscription writes)`,
    );
    say(`  cpu       ${((cpu * 1000) / Math.max(1, done)).toFixed(1)} ms of subscriptions + payments CPU per renewal`);
    say(`  per renewal: ${fmtDbWork(db)}`);
    say(`  double charges: ${doubles} (must be 0)`);
    say('');
    return {
      name: 'renewals',
      platform: `${rate.toFixed(1)} renewals/s, ${done}/${count} renewed, ${doubles} double charges`,
      reference: `${baseline.rate.toFixed(1)} direct off-session charges/s`,
      ratio: `${(rate / baseline.rate).toFixed(2)}x`,
      target: 'every one renewed, 0 double charges',
      pass: doubles === 0 && done === count,
      failed: doubles > 0 || done < count,
    };
  } finally {
    await env.stop();
  }
}

export async function directCharges(env: Env, paymentMethodId: string, count: number, concurrency: number) {
  const client = new ServiceClient<types.payments.PaymentsServiceClient>(
    'payments',
    loadPlatformProto().ppay.payments.v1.PaymentsService,
    env.platform.grpcAddress('payments'),
    { deadlineMs: 30_000 },
  );
  let next = 0;
  const started = Date.now();
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      await client.call(
        'ChargePaymentMethod',
        {
          payment_method_id: paymentMethodId,
          price: { amount: 100_000, currency: 'NGN' },
          idempotency_key: `bench:${i}`,
          product: { title: 'Bench box', type: 'subscription' },
          subscription_frequency_key: 'monthly',
        },
        callerToMetadata({
          requestId: newRequestId(),
          auth: 'internal',
          merchantId: env.merchant.merchant_id,
          mode: 'sandbox',
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  client.close();
  return { rate: count / ((Date.now() - started) / 1000) };
}

export async function subscriptionsListBench(): Promise<CaseResult> {
  const small = Number(process.env.BENCH_SMALL ?? 1_000);
  const large = Number(process.env.BENCH_LARGE ?? 100_000);
  const requests = Number(process.env.BENCH_REQUESTS ?? 200);
  // No renewals during the measurement: the seeded subscriptions are due far in the future anyway.
  const env = await startEnv({ subscriptions: { SCHEDULER_ENABLED: 'false' } });
  try {
    const secrets = loadOrCreateSecrets(BENCH_STATE_DIR);
    const smallMerchant = env.merchant;
    const largeMerchant = await newMerchant(env.platform, secrets.AUTH_JWT_SECRET);
    const seeded = async (m: NewMerchant, n: number) => {
      const template = await templateSubscription(env, m);
      const t0 = Date.now();
      say(`seeding ${n} subscriptions for merchant ${m.merchant_id}…`);
      const statuses = ['active', 'active', 'active', 'due', 'paused', 'cancelled'];
      const payment = ['paid', 'paid', 'failed', 'pending', 'none'];
      await insertClones(env, n - 1, (i) => {
        const id = `sub_${m.merchant_id}_${i}`;
        const created = new Date(t0 - i * 60_000);
        const nextPayment = new Date(t0 + ((i * 7919) % 365) * DAY);
        return {
          ...template,
          _id: id,
          origin_ref: `id:${id}`,
          status: statuses[i % statuses.length],
          payment_status: payment[i % payment.length],
          amount: { amount: 1_000 + ((i * 104_729) % 1_000_000), currency: 'NGN' },
          created_at: created,
          next_payment_date: nextPayment,
          next_action_at: null,
          wake_at: null,
          outbox: [],
        };
      });
    };
    await seeded(smallMerchant, small);
    await seeded(largeMerchant, large);
    const sorts = ['created_at', 'next_payment', 'actual_price', 'payment_status'];
    const page = async (m: NewMerchant, i: number) => {
      const url = `${env.platform.gatewayUrl}/api/v1/partner/subscriptions?limit=20&sort_by=${sorts[i % sorts.length]}&sort_order=${i % 2 ? 'ASC' : 'DESC'}`;
      const t = process.hrtime.bigint();
      const res = await fetch(url, { headers: { 'x-api-key': m.api_key } });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`list failed: ${res.status}`);
      return Number(process.hrtime.bigint() - t) / 1e6;
    };
    // Requests alternate between the two merchants, so a GC pause or a background sweep lands on both
    // sides alike; with 200 per side the p99 is a percentile, not the slowest of a few requests.
    for (let i = 0; i < 4; i++) {
      await page(smallMerchant, i); // warm-up
      await page(largeMerchant, i);
    }
    const smallTimes: number[] = [];
    const largeTimes: number[] = [];
    const cpuBefore = cpuSecondsOfProcesses(env.platform, ['subscriptions']);
    for (let i = 0; i < requests; i++) {
      smallTimes.push(await page(smallMerchant, i));
      largeTimes.push(await page(largeMerchant, i));
    }
    const cpu = cpuSecondsOfProcesses(env.platform, ['subscriptions']) - cpuBefore;
    const percentiles = (times: number[]) => {
      times.sort((x, y) => x - y);
      const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]!;
      return { p50: at(0.5), p99: at(0.99) };
    };
    const a = percentiles(smallTimes);
    const b = percentiles(largeTimes);
    const ratio = b.p99 / a.p99;
    say('');
    say(
      `case subscriptions-list: GET /subscriptions, a sorted page of 20 (4 sort keys × 2 orders), ${requests} sequential requests per merchant, alternating`,
    );
    say(`  ${small.toLocaleString('en')} subscriptions   p50 ${a.p50.toFixed(1)} ms   p99 ${a.p99.toFixed(1)} ms`);
    say(`  ${large.toLocaleString('en')} subscriptions   p50 ${b.p50.toFixed(1)} ms   p99 ${b.p99.toFixed(1)} ms`);
    say(`  ratio     ${ratio.toFixed(2)}x p99 (target <= 2) ${ratio <= 2 ? 'PASS' : 'ABOVE TARGET'}`);
    say(`  cpu       ${((cpu * 1000) / (2 * requests)).toFixed(1)} ms of subscriptions CPU per request`);
    say('');
    return {
      name: 'subscriptions-list',
      platform: `p99 ${b.p99.toFixed(1)} ms at ${large.toLocaleString('en')}`,
      reference: `p99 ${a.p99.toFixed(1)} ms at ${small.toLocaleString('en')}`,
      ratio: `${ratio.toFixed(2)}x`,
      target: '<= 2x',
      pass: ratio <= 2,
      failed: false,
    };
  } finally {
    await env.stop();
  }
}
