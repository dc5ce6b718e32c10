import { randomBytes, randomUUID } from 'node:crypto';
import { approvableKycSubmission } from '../kyc-fixtures';
import { connectMongo, createLogger } from '@ppay/runtime';
import type { Connection } from 'mongoose';
import { createMerchant, type NewMerchant } from '../merchants';
import type { Platform } from '../platform';
import { startBenchPlatform } from './bench-infra';
import { cpuSecondsOf, cpuSecondsOfProcesses, infraPids } from './proc';
import type { CaseResult } from './table';

/**
 * Wallet benchmarks, against a fresh local platform on loopback, bounded in count and time:
 *  - balance: p50/p99 of GET /marketplace/merchants/{id}/balance for a sub-merchant with 1,000 ledger
 *    entries (the baseline) and one with BENCH_LARGE (default 1,000,000), in the same run; the entries
 *    are bulk-inserted straight into payments' database with their wallet while payments is stopped
 *    (`seedWalletsQuiet` says why). Target ratio ≤ 1.5.
 *  - approve-race: reserve/approve cycles (a sub-merchant's payout request, then BENCH_APPROVERS
 *    concurrent approvals of it) per second, double spends (must be 0), against the same number of
 *    plain authenticated requests per cycle (GET /account) as the baseline.
 */

const say = (line: string) => process.stdout.write(`${line}\n`);

interface Env {
  platform: Platform;
  operator: NewMerchant;
  payments: Connection;
  /** FerretDB's pid (0 if unknown): the balance bench reports how busy the database was. */
  ferretdbPid: number;
  newSub(): Promise<NewMerchant>;
  stop(): Promise<void>;
}

async function startEnv(): Promise<Env> {
  const bench = await startBenchPlatform({
    gateway: { RATE_LIMIT_DASHBOARD_PER_SECOND: '1000000' },
    // The reconciler sums every entry of every wallet (it is O(history) by design and runs rarely):
    // kept out of the measured minutes.
    payments: { WALLET_RECONCILE_INTERVAL_MS: String(3_600_000) },
  });
  const { platform } = bench;
  const target = bench.bootstrap;
  const email = () => `bench${randomBytes(4).toString('hex')}@example.com`;
  const operator = await createMerchant(target, { email: email(), country: 'NG', currency: 'NGN', marketplace: true });
  await call(platform, operator.api_key, 'POST', '/api/v1/partner/marketplace/setup', { marketplace_name: 'Bench' });
  const payments = await connectMongo(bench.mongoUri, 'ppay_payments', createLogger('bench', 'silent'));
  return {
    platform,
    operator,
    payments,
    ferretdbPid: infraPids(bench.infraDir)[0] ?? 0,
    newSub: () =>
      createMerchant(target, { email: email(), country: 'NG', currency: 'NGN', operator: operator.merchant_id }),
    async stop() {
      await payments.close();
      await bench.stop();
    },
  };
}

async function call(
  platform: Platform,
  key: string,
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = { 'x-api-key': key },
): Promise<{ status: number; body: { data?: Record<string, unknown>; message?: string } }> {
  const res = await fetch(platform.gatewayUrl + url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown> } };
}

/**
 * Seeding ledger entries. The documents are what payments stores for a plain charge's credit once it
 * is applied to its wallet and its wallet.credited event relayed (`creditsFor` in domain/ledger.ts,
 * `MongoLedgerEntries.insert`, `markApplied`, the relay's pull): key `${charge_id}:${merchant}:payment`
 * as `_id` and `idempotency_key`, a `ch_` + 24 base62 charge id, an `evt_` UUID, `wallet_id` and
 * `wallet_seq` 1..count, an empty outbox with `outbox_pending_since: null`. They go into the real
 * `ledger_entries` collection, whose indexes payments created at its start, then the wallet document
 * holding exactly their totals (what WalletLedger would have built, and what the reconciler checks).
 *
 * Charge ids are random in the platform; here each wallet's are a random 8-character prefix and a
 * 16-digit base62 counter (still 24 base62 characters, unique), so the three indexes on them (`_id`,
 * `idempotency_key`, `charge_id`) grow at their end instead of at random pages (the read being
 * measured never looks at them).
 */
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const base62 = (n: number, width: number) => {
  let out = '';
  for (let v = n; v > 0; v = Math.floor(v / 62)) out = BASE62[v % 62]! + out;
  return out.padStart(width, '0');
};

async function seedWallet(env: Env, merchantId: number, count: number, amountEach = 1_000): Promise<void> {
  const walletId = `${merchantId}:sandbox:NGN`;
  const chargePrefix = `ch_${randomBytes(6).toString('base64url').replace(/[-_]/g, '0').slice(0, 8)}`;
  const keyOf = (n: number) => `${chargePrefix}${base62(n, 16)}:${merchantId}:payment`;
  // Batches of 2,000 per command; FerretDB's insert handler writes each 100 documents (its --test-batch-size
  // default) in one SQLite transaction, and only falls back to one per document after a failed batch.
  const BATCH = 2_000;
  const t0 = Date.now();
  const created = new Date();
  for (let i = 0; i < count; i += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, count - i) }, (_, k) => {
      const n = i + k;
      const key = keyOf(n);
      return {
        _id: key,
        idempotency_key: key,
        merchant_id: merchantId,
        mode: 'sandbox',
        kind: 'credit',
        reason: 'payment',
        amount: { amount: amountEach, currency: 'NGN' },
        reservation_key: null,
        charge_id: `${chargePrefix}${base62(n, 16)}`,
        event_id: `evt_${randomUUID()}`,
        conversion_details: null,
        created_at: created,
        wallet_id: walletId,
        wallet_seq: n + 1,
        outbox: [],
        outbox_pending_since: null,
      };
    });
    await env.payments.collection('ledger_entries').insertMany(docs as never[], { ordered: true });
    if ((i / BATCH) % 50 === 49)
      say(`  … ${(i + docs.length).toLocaleString('en')} entries (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  }
  await env.payments.collection('wallets').insertOne({
    _id: walletId,
    owner: `${merchantId}:sandbox`,
    merchant_id: merchantId,
    mode: 'sandbox',
    currency: 'NGN',
    available: count * amountEach,
    reserved: 0,
    total_credits: count * amountEach,
    total_debits: 0,
    transaction_count: count,
    seq: count,
    last_entry_id: count ? keyOf(count - 1) : null,
    reservations: {},
    updated_at: created,
  } as never);
  say(
    `  seeded ${count.toLocaleString('en')} entries for merchant ${merchantId} in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
}

/**
 * Seeds with the payments service stopped, then starts it again. FerretDB answers any filter but a
 * bare `_id` by decoding every document of the collection in Go, so payments' periodic passes over
 * `ledger_entries` (the wallet sweep's `{wallet_seq: null}` every 10 s, the outbox relay's full sweep
 * every 30 s: a find and a count) cost time in proportion to the collection and, once it is large,
 * run back to back, taking both cores from the inserts and keeping SQLite read snapshots open so the
 * WAL cannot be checkpointed. Measured: 10,000-document inserts took 1.4–1.8 s from 0 to 200,000
 * documents with nothing else reading, 4–5 s from 200,000 with one such scan loop (a scan alone took
 * 33 s there), and ~19 s inside the platform (docs/performance.md, "Balance"). No other service reads
 * payments' database; the indexes exist already (payments created them at its first start).
 */
async function seedWalletsQuiet(env: Env, wallets: [merchantId: number, count: number][]): Promise<void> {
  const t0 = Date.now();
  await env.platform.stopProcess('payments');
  for (const [merchantId, count] of wallets) await seedWallet(env, merchantId, count);
  await env.platform.startProcess('payments');
  say(`  seeding done in ${((Date.now() - t0) / 1000).toFixed(1)} s (payments stopped meanwhile, then started)`);
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

export async function balanceBench(): Promise<CaseResult> {
  const small = Number(process.env.BENCH_SMALL ?? 1_000);
  const large = Number(process.env.BENCH_LARGE ?? 1_000_000);
  const requests = Number(process.env.BENCH_REQUESTS ?? 200);
  const env = await startEnv();
  try {
    const smallSub = await env.newSub();
    const largeSub = await env.newSub();
    say(`seeding ledger entries straight into ppay_payments (bulk inserts)…`);
    await seedWalletsQuiet(env, [
      [smallSub.merchant_id, small],
      [largeSub.merchant_id, large],
    ]);
    const read = async (m: NewMerchant) => {
      const t = process.hrtime.bigint();
      const res = await fetch(
        `${env.platform.gatewayUrl}/api/v1/partner/marketplace/merchants/${m.merchant_id}/balance`,
        {
          headers: { 'x-api-key': env.operator.api_key },
        },
      );
      const body = (await res.json()) as { data?: { balances: { transaction_count: number }[] } };
      if (!res.ok) throw new Error(`balance failed: ${res.status} ${JSON.stringify(body)}`);
      return { ms: Number(process.hrtime.bigint() - t) / 1e6, count: body.data!.balances[0]?.transaction_count ?? 0 };
    };
    // Requests alternate between the two merchants, so background load on this shared machine hits
    // both sides alike.
    // Marketplace's channel to payments reconnects after the restart: the first reads may still fail.
    for (let deadline = Date.now() + 60_000; ;) {
      const ok = await read(largeSub).then(
        () => true,
        (err: unknown) => (Date.now() > deadline ? Promise.reject(err) : false),
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    for (let i = 0; i < 10; i++) await Promise.all([read(smallSub), read(largeSub)]); // warm-up
    const times: [number[], number[]] = [[], []];
    const cpuBefore = cpuSecondsOfProcesses(env.platform, ['gateway', 'marketplace', 'payments']);
    const dbCpuBefore = cpuSecondsOf(env.ferretdbPid);
    const wallStart = process.hrtime.bigint();
    for (let i = 0; i < requests; i++) {
      for (const [side, m, expected] of [
        [0, smallSub, small],
        [1, largeSub, large],
      ] as const) {
        const { ms, count } = await read(m);
        if (count !== expected)
          throw new Error(`merchant ${m.merchant_id}: transaction_count ${count}, expected ${expected}`);
        times[side].push(ms);
      }
    }
    const cpu = cpuSecondsOfProcesses(env.platform, ['gateway', 'marketplace', 'payments']) - cpuBefore;
    const wallSeconds = Number(process.hrtime.bigint() - wallStart) / 1e9;
    // FerretDB serves the reads and also payments' periodic passes over ledger_entries, which decode
    // every document on FerretDB (not on MongoDB): how many cores it kept busy says how loaded it was.
    const dbCores = (cpuSecondsOf(env.ferretdbPid) - dbCpuBefore) / wallSeconds;
    const figures = (list: number[]) => {
      const sorted = [...list].sort((a, b) => a - b);
      return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
    };
    const a1 = figures(times[0]);
    const b1 = figures(times[1]);
    const ratio = b1.p99 / a1.p99;
    say('');
    say(
      `case balance: GET /marketplace/merchants/{id}/balance (operator key; gateway → marketplace → payments), ${requests} sequential requests per merchant, alternating`,
    );
    say(
      `  ${small.toLocaleString('en').padStart(9)} entries (baseline)   p50 ${a1.p50.toFixed(1)} ms   p99 ${a1.p99.toFixed(1)} ms`,
    );
    say(
      `  ${large.toLocaleString('en').padStart(9)} entries              p50 ${b1.p50.toFixed(1)} ms   p99 ${b1.p99.toFixed(1)} ms`,
    );
    say(`  ratio     ${ratio.toFixed(2)}x p99 (target <= 1.5) ${ratio <= 1.5 ? 'PASS' : 'ABOVE TARGET'}`);
    say(
      `  cpu       ${((cpu * 1000) / (2 * (requests + 10))).toFixed(2)} ms of gateway+marketplace+payments CPU per request`,
    );
    say(
      `  ferretdb  ${dbCores.toFixed(2)} cores busy over the ${wallSeconds.toFixed(0)} s measured (reads and background sweeps)`,
    );
    say('');
    return {
      name: 'balance',
      platform: `p99 ${b1.p99.toFixed(1)} ms at ${large.toLocaleString('en')} entries`,
      reference: `p99 ${a1.p99.toFixed(1)} ms at ${small.toLocaleString('en')} entries`,
      ratio: `${ratio.toFixed(2)}x`,
      target: '<= 1.5x',
      pass: ratio <= 1.5,
      failed: false,
    };
  } finally {
    await env.stop();
  }
}

export async function approveRaceBench(): Promise<CaseResult> {
  const cycles = Number(process.env.BENCH_CYCLES ?? 200);
  const approvers = Number(process.env.BENCH_APPROVERS ?? 5);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 2);
  const amount = 1_000;
  const env = await startEnv();
  try {
    const sub = await env.newSub();
    const kyc = await call(
      env.platform,
      env.operator.api_key,
      'POST',
      `/api/v1/partner/marketplace/merchants/${sub.merchant_id}/kyc`,
      approvableKycSubmission(),
    );
    if (kyc.body.data?.status !== 'approved') throw new Error(`KYC not approved: ${JSON.stringify(kyc.body)}`);
    const setup = await call(
      env.platform,
      env.operator.api_key,
      'POST',
      `/api/v1/partner/marketplace/merchants/${sub.merchant_id}/payout`,
      {},
    );
    if (setup.status !== 200) throw new Error(`payout setup failed: ${JSON.stringify(setup.body)}`);
    // Funds for every cycle but one: the last request must be refused, not overdraw.
    const funded = (cycles - 1) * amount;
    await seedWallet(env, sub.merchant_id, cycles - 1, amount);

    const dashboard = { 'x-id-key': env.operator.user_token, 'x-environment': 'sandbox' };
    let approvedTwice = 0;
    let approvedNone = 0;
    let refused = 0;
    let timeouts = 0;
    let approvedByApi = 0;
    const cycle = async (i: number) => {
      const reference = `race-${i}`;
      const req = await call(env.platform, sub.api_key, 'POST', '/api/v1/partner/marketplace/payouts', {
        amount,
        currency: 'NGN',
        reference,
      });
      if (req.status === 400) return void refused++;
      if (req.status !== 200) throw new Error(`payout request ${i}: ${req.status} ${JSON.stringify(req.body)}`);
      const answers = await Promise.all(
        Array.from({ length: approvers }, () =>
          call(
            env.platform,
            '',
            'POST',
            `/api/v1/marketplace/merchants/${sub.merchant_id}/payouts/${reference}/approve`,
            undefined,
            dashboard,
          ),
        ),
      );
      const wins = answers.filter((a) => a.status === 200).length;
      // A timeout is an unknown outcome (the approval may have happened): counted, checked in the database below.
      timeouts += answers.filter((a) => a.status === 503 || a.status === 504).length;
      const others = answers.filter((a) => ![200, 409, 503, 504].includes(a.status));
      if (others.length) throw new Error(`approval ${i}: ${others[0]!.status} ${JSON.stringify(others[0]!.body)}`);
      approvedByApi += wins;
      if (wins > 1) approvedTwice++;
      if (wins === 0) approvedNone++;
    };
    const run = async (work: (i: number) => Promise<void>) => {
      let next = 0;
      const t0 = process.hrtime.bigint();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          for (let i = next++; i < cycles; i = next++) await work(i);
        }),
      );
      return Number(process.hrtime.bigint() - t0) / 1e9;
    };
    const cpuBefore = cpuSecondsOfProcesses(env.platform, ['gateway', 'marketplace', 'payments', 'kyc']);
    const seconds = await run(cycle);
    const cpu = cpuSecondsOfProcesses(env.platform, ['gateway', 'marketplace', 'payments', 'kyc']) - cpuBefore;
    const baselineSeconds = await run(async () => {
      await Promise.all(
        Array.from({ length: 1 + approvers }, () => call(env.platform, sub.api_key, 'GET', '/api/v1/partner/account')),
      );
    });
    const wallet = (await env.payments
      .collection('wallets')
      .findOne({ _id: `${sub.merchant_id}:sandbox:NGN` } as never)) as unknown as {
      available: number;
      reserved: number;
    };
    const approved = cycles - refused - approvedNone;
    const approvedInDb = await env.payments
      .collection('payouts')
      .countDocuments({ merchant_id: sub.merchant_id, request_status: 'approved' } as never);
    // A double spend: two approvals of one request, or money reserved beyond what the wallet held.
    const overdrawn = wallet.available < 0 || wallet.available + wallet.reserved !== funded ? 1 : 0;
    // More 200s than approved requests would be two approvals of one request answered as won.
    const doubleSpends = approvedTwice + overdrawn + Math.max(0, approvedByApi - approvedInDb);
    const rate = cycles / seconds;
    const baseRate = cycles / baselineSeconds;
    say('');
    say(
      `case approve-race: ${cycles} cycles (payout request by the sub-merchant, then ${approvers} concurrent approvals), ${concurrency} cycles at a time`,
    );
    say(
      `  platform  ${rate.toFixed(1)} cycles/s   (${approved} approved once, ${refused} refused for lack of balance, ${approvedNone} unapproved)`,
    );
    say(
      `  baseline  ${baseRate.toFixed(1)} cycles/s   (${1 + approvers} concurrent GET /account per cycle: auth + one gRPC hop)`,
    );
    say(`  ratio     ${(rate / baseRate).toFixed(2)}x baseline`);
    say(`  wallet    available ${wallet.available}, reserved ${wallet.reserved}, funded ${funded}`);
    say(
      `  approvals ${approvedByApi} answered 200, ${approvedInDb} approved requests stored, ${timeouts} answers timed out (unknown outcome)`,
    );
    say(`  double spends ${doubleSpends} (target 0) ${doubleSpends === 0 ? 'PASS' : 'FAIL'}`);
    say(`  cpu       ${((cpu * 1000) / cycles).toFixed(1)} ms of gateway+marketplace+payments+kyc CPU per cycle`);
    say('');
    return {
      name: 'approve-race',
      platform: `${rate.toFixed(1)} cycles/s, ${doubleSpends} double spends`,
      reference: `${baseRate.toFixed(1)} cycles/s of GET /account`,
      ratio: `${(rate / baseRate).toFixed(2)}x`,
      target: '0 double spends',
      pass: doubleSpends === 0 && refused === 1,
      failed: doubleSpends > 0 || refused !== 1,
    };
  } finally {
    await env.stop();
  }
}
