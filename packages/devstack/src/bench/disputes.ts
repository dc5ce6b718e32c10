import { randomBytes } from 'node:crypto';
import { connectMongo, createLogger } from '@ppay/runtime';
import type { Connection } from 'mongoose';
import { createMerchant, type NewMerchant } from '../merchants';
import type { Platform } from '../platform';
import { startBenchPlatform } from './bench-infra';
import { cpuSecondsOfProcesses } from './proc';
import type { CaseResult } from './table';

/**
 * `npm run bench -- disputes`, against a fresh local platform on loopback, bounded:
 *  1. race: BENCH_DISPUTES (100) paid charges of one merchant, each disputed, then BENCH_RACERS (50)
 *     concurrent calls per dispute racing submit / accept / sandbox won / sandbox lost. Every dispute
 *     must close once and move its money once: the count of double effects (a second close, withdrawals
 *     or reinstatements that are not exactly the dispute's own) must be 0.
 *  2. lists: p99 of a GET /disputes and a GET /payments/charges page of that merchant with 1,000
 *     (BENCH_SMALL) rows of other merchants in each collection, then with 1,000,000 (BENCH_LARGE), in the
 *     same run. The other rows are bulk-inserted with payments stopped (as the balance bench does).
 *     Target: p99 at the large size ≤ 1.5× the small.
 */

const say = (line: string) => process.stdout.write(`${line}\n`);
type Body = { data?: Record<string, unknown>; error?: { code?: string } };

async function call(platform: Platform, key: string, method: string, url: string, body?: unknown) {
  const res = await fetch(`${platform.gatewayUrl}/api/v1/partner${url}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Body };
}

async function paidDispute(platform: Platform, m: NewMerchant): Promise<{ charge: string; dispute: string }> {
  const created = await call(platform, m.api_key, 'POST', '/payments/charge', {
    amount: 500_000,
    currency: 'NGN',
    total_amount: 500_000,
    total_currency: 'NGN',
    customer: { email: 'buyer@example.com' },
  });
  const charge = created.body.data?.charge_id as string;
  const paid = await call(platform, m.api_key, 'POST', `/sandbox/charges/${charge}/succeed`);
  const opened = await call(platform, m.api_key, 'POST', `/sandbox/charges/${charge}/dispute`, { reason: 'general' });
  if (paid.status !== 200 || opened.status !== 200) throw new Error(`setup: ${JSON.stringify(opened.body)}`);
  return { charge, dispute: opened.body.data!.dispute_id as string };
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

/** Rows of other merchants, each with just what a page's index range passes over. */
async function seedOthers(payments: Connection, from: number, to: number): Promise<void> {
  const BATCH = 2_000;
  const prefix = randomBytes(4).toString('hex');
  const at = new Date(Date.now() - 86_400_000);
  for (let i = from; i < to; i += BATCH) {
    const n = Math.min(BATCH, to - i);
    const merchant = 900_000 + (i % 1_000);
    const stamp = (k: number) => new Date(at.getTime() + i + k).toISOString();
    const disputes = Array.from({ length: n }, (_, k) => ({
      _id: `dp_${prefix}${i + k}`,
      charge_id: `ch_${prefix}${i + k}`,
      merchant_id: merchant,
      mode: 'sandbox',
      status: 'lost',
      list_key: `${stamp(k)}|dp_${prefix}${i + k}`,
      evidence_due_by: at,
      scheduled_outcome_at: null,
      updated_at: at,
      outbox: [],
      outbox_pending_since: null,
    }));
    const charges = Array.from({ length: n }, (_, k) => ({
      _id: `ch_${prefix}${i + k}`,
      transaction_id: `txn_${prefix}${i + k}`,
      merchant_id: merchant,
      mode: 'sandbox',
      status: 'succeeded',
      reference_key: `id:ch_${prefix}${i + k}`,
      idempotency_ref: `id:ch_${prefix}${i + k}`,
      list_key: `${stamp(k)}|ch_${prefix}${i + k}`,
      ledger_checked_at: at,
      refund_pending_since: null,
      outbox: [],
      outbox_pending_since: null,
    }));
    await payments.collection('disputes').insertMany(disputes as never[], { ordered: false });
    await payments.collection('charges').insertMany(charges as never[], { ordered: false });
  }
}

export async function disputesBench(): Promise<CaseResult> {
  const count = Number(process.env.BENCH_DISPUTES ?? 100);
  const racers = Number(process.env.BENCH_RACERS ?? 50);
  const small = Number(process.env.BENCH_SMALL ?? 1_000);
  const large = Number(process.env.BENCH_LARGE ?? 1_000_000);
  const requests = Number(process.env.BENCH_REQUESTS ?? 200);
  const bench = await startBenchPlatform();
  const payments = await connectMongo(bench.mongoUri, 'ppay_payments', createLogger('bench', 'silent'));
  const { platform } = bench;
  try {
    const email = `bench${randomBytes(4).toString('hex')}@example.com`;
    const m = await createMerchant(bench.bootstrap, { email, country: 'NG', currency: 'NGN' });
    const cases: { charge: string; dispute: string }[] = [];
    for (let i = 0; i < count; i++) cases.push(await paidDispute(platform, m));

    // --- 1. the race --------------------------------------------------------------------------------
    const actions = [
      () => ['POST', '/evidence', { customer_name: 'Ada', submit: true }] as const,
      () => ['POST', '/accept', undefined] as const,
      () => ['POST', '/won', undefined] as const,
      () => ['POST', '/lost', undefined] as const,
    ];
    let unexpected = 0;
    const cpuBefore = cpuSecondsOfProcesses(platform, ['gateway', 'payments']);
    const t0 = process.hrtime.bigint();
    for (const c of cases) {
      const answers = await Promise.all(
        Array.from({ length: racers }, (_, i) => {
          const [method, suffix, body] = actions[i % actions.length]!();
          const base = suffix === '/won' || suffix === '/lost' ? '/sandbox/disputes/' : '/disputes/';
          return call(platform, m.api_key, method, `${base}${c.dispute}${suffix}`, body);
        }),
      );
      unexpected += answers.filter((a) => a.status !== 200 && a.status !== 409).length;
    }
    const raceSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const raceCpu = cpuSecondsOfProcesses(platform, ['gateway', 'payments']) - cpuBefore;
    // A dispute submitted but not decided in the race stays under review: decide it, then count.
    for (const c of cases) await call(platform, m.api_key, 'POST', `/sandbox/disputes/${c.dispute}/won`);
    await new Promise((r) => setTimeout(r, 3_000)); // the ledger consumers catch up
    let doubles = 0;
    let won = 0;
    for (const c of cases) {
      const d = (await call(platform, m.api_key, 'GET', `/disputes/${c.dispute}`)).body.data as {
        status: string;
        funds_withdrawn: unknown[];
        funds_reinstated: unknown[];
      };
      const entries = await payments.collection('ledger_entries').countDocuments({
        charge_id: c.charge,
        reason: { $in: ['dispute_withdrawal', 'dispute_fee', 'dispute_reinstatement'] },
      });
      const closes = await payments
        .collection('disputes')
        .countDocuments({ _id: c.dispute, status: { $in: ['won', 'lost'] } } as never);
      if (d.status === 'won') won++;
      const want = d.funds_withdrawn.length + d.funds_reinstated.length;
      if (closes !== 1 || entries !== want || (d.status === 'won') !== d.funds_reinstated.length > 0) doubles++;
    }

    // --- 2. list pages at 1,000 and 1,000,000 rows of other merchants --------------------------------
    const page = async () => {
      const times: [number[], number[]] = [[], []];
      for (let i = 0; i < requests; i++) {
        for (const [side, url] of [
          [0, '/disputes?limit=20'],
          [1, '/payments/charges?limit=20'],
        ] as const) {
          const t = process.hrtime.bigint();
          const res = await call(platform, m.api_key, 'GET', url);
          if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
          times[side].push(Number(process.hrtime.bigint() - t) / 1e6);
        }
      }
      const sorted = times.map((list) => [...list].sort((a, b) => a - b));
      return [...sorted.map((list) => quantile(list, 0.99)), ...sorted.map((list) => quantile(list, 0.5))];
    };
    await platform.stopProcess('payments');
    await seedOthers(payments, 0, small);
    await platform.startProcess('payments');
    await page(); // warm-up (payments' channels reconnect)
    const [dSmall, cSmall, dSmall50, cSmall50] = await page();
    say(`seeding ${(large - small).toLocaleString('en')} more disputes and charges of other merchants…`);
    const seedStart = Date.now();
    await platform.stopProcess('payments');
    await seedOthers(payments, small, large);
    await platform.startProcess('payments');
    say(`  seeded in ${((Date.now() - seedStart) / 1000).toFixed(0)} s`);
    await page();
    const [dLarge, cLarge, dLarge50, cLarge50] = await page();
    const ratio = Math.max(dLarge! / dSmall!, cLarge! / cSmall!);

    say('');
    say(`case disputes: ${count} disputes, ${racers} concurrent submit / accept / won / lost calls on each`);
    say(
      `  race      ${((count * racers) / raceSeconds).toFixed(0)} calls/s, ${((raceCpu * 1000) / (count * racers)).toFixed(2)} ms gateway+payments CPU per call; ${won} won, ${count - won} lost, ${unexpected} answers other than 200/409`,
    );
    say(`  double effects ${doubles} (target 0) ${doubles === 0 ? 'PASS' : 'FAIL'}`);
    say(
      `  GET /disputes page          p99 ${dSmall!.toFixed(1)} ms at ${small.toLocaleString('en')} other rows, ${dLarge!.toFixed(1)} ms at ${large.toLocaleString('en')} (p50 ${dSmall50!.toFixed(1)} / ${dLarge50!.toFixed(1)} ms)`,
    );
    say(
      `  GET /payments/charges page  p99 ${cSmall!.toFixed(1)} ms at ${small.toLocaleString('en')} other rows, ${cLarge!.toFixed(1)} ms at ${large.toLocaleString('en')} (p50 ${cSmall50!.toFixed(1)} / ${cLarge50!.toFixed(1)} ms)`,
    );
    say(
      `  ratio     ${ratio.toFixed(2)}x p99, the larger of the two (target <= 1.5) ${ratio <= 1.5 ? 'PASS' : 'ABOVE TARGET'}`,
    );
    say('');
    return {
      name: 'disputes',
      platform: `${doubles} double effects; list p99 ${dLarge!.toFixed(1)} / ${cLarge!.toFixed(1)} ms at ${large.toLocaleString('en')}`,
      reference: `list p99 ${dSmall!.toFixed(1)} / ${cSmall!.toFixed(1)} ms at ${small.toLocaleString('en')}`,
      ratio: `${ratio.toFixed(2)}x`,
      target: '0 double effects, <= 1.5x',
      pass: doubles === 0 && ratio <= 1.5,
      failed: doubles > 0 || unexpected > 0,
    };
  } finally {
    await payments.close();
    await bench.stop();
  }
}
