import * as os from 'node:os';
import { dbWork, fmtDbWork } from './db-work';
import { directCharges, insertClones, measureUntilCounted, say, startEnv, type Env } from './subscriptions';
import type { CaseResult } from './table';

/**
 * `npm run bench -- installments` (issue 26): N installment plans of 3 parts (BENCH_PLANS, default 5,000)
 * whose later parts all fall due at once, charged by the leased scheduler through payments until every
 * plan is completed: 2 × N parts, each exactly once. Prints parts/s, the double and missing charges (both
 * must be 0), CPU per part, and as baseline the same kind of off-session charges asked of payments
 * directly with the scheduler's concurrency, in the same run.
 */

const DAY = 86_400_000;
const PARTS = 3;

/** One real plan, paid on the hosted page (session with installments, then the page's pay form): the template. */
async function templatePlan(env: Env) {
  const headers = { 'x-api-key': env.merchant.api_key, 'content-type': 'application/json' };
  const created = await fetch(`${env.platform.gatewayUrl}/api/v1/partner/payments/sessions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      amount: 300_000,
      currency: 'NGN',
      product_name: 'Bench phone',
      customer: { email: 'bench@example.com' },
      installments: { count: PARTS, interval: 'monthly' },
    }),
  });
  const body = (await created.json()) as { data?: { session_id: string; installments: { plan_id: string } } };
  if (!created.ok || !body.data)
    throw new Error(`installment session failed: ${created.status} ${JSON.stringify(body)}`);
  const pay = await fetch(`${env.platform.gatewayUrl}/checkout/${body.data.session_id}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ card_number: '4242424242424242', expiry: '12/34', cvc: '123' }),
    redirect: 'manual',
  });
  if (pay.status >= 400) throw new Error(`paying the first part failed: ${pay.status}`);
  const id = body.data.installments.plan_id;
  for (let i = 0; i < 200; i++) {
    const doc = await env.subs.collection('installment_plans').findOne({ _id: id } as never);
    if (doc)
      return doc as unknown as Record<string, unknown> & { _id: string; created_at: Date; payment_method_id: string };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('template plan not stored');
}

export async function installmentsBench(): Promise<CaseResult> {
  const count = Number(process.env.BENCH_PLANS ?? 5_000);
  const concurrency = Number(process.env.BENCH_SCHEDULER_CONCURRENCY ?? 4);
  const timeoutMs = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 1_800) * 1000;
  const env = await startEnv({
    subscriptions: { SCHEDULER_INTERVAL_MS: '100', SCHEDULER_CONCURRENCY: String(concurrency) },
  });
  try {
    const template = await templatePlan(env);
    const merchantId = env.merchant.merchant_id;
    const future = new Date(Date.now() + 365 * DAY);
    say(`seeding ${count} installment plans of ${PARTS} parts (waiting until released)…`);
    await insertClones(
      env,
      count,
      (i) => {
        const id = `ip_bench${String(i).padStart(8, '0')}`;
        return {
          ...template,
          _id: id,
          checkout_session_id: `cs_bench${i}`,
          sort_key: `${template.created_at.toISOString()}|${id}`,
          next_action_at: future,
          wake_at: future,
          lease_owner: null,
          lease_until: new Date(0),
          outbox: [],
        };
      },
      undefined,
      'installment_plans',
    );
    // Their clocks jump past the last part at once (as the sandbox clock does): parts 2 and 3 are both due,
    // and the scheduler charges them one after the other in one claim. One write: the clock starts then.
    const releaseStarted = Date.now();
    await env.subs
      .collection('installment_plans')
      .updateMany({ merchant_id: merchantId, _id: { $ne: template._id } } as never, {
        $set: { clock_offset_ms: 70 * DAY, wake_at: new Date() },
      });
    say(`released ${count} plans in ${((Date.now() - releaseStarted) / 1000).toFixed(1)} s`);
    // Counted over the list's (merchant, mode, status) index.
    const { done, seconds, cpu, dbBefore, dbAfter } = await measureUntilCounted(env, {
      collection: 'installment_plans',
      query: { merchant_id: merchantId, mode: 'sandbox', status: 'completed' },
      count,
      timeoutMs,
      what: 'plans completed',
    });

    // Exactly once: one successful charge per (plan, part) for parts 2 and 3 of every clone.
    const charges = await env.payments
      .collection('charges')
      .find({ merchant_id: merchantId, status: 'succeeded' }, { projection: { reference_key: 1 } })
      .toArray();
    const perPart = new Map<string, number>();
    for (const c of charges) {
      const [kind, plan, part] = String(c.reference_key).split(':');
      if (kind !== 'inst' || plan === template._id) continue;
      perPart.set(`${plan}:${part}`, (perPart.get(`${plan}:${part}`) ?? 0) + 1);
    }
    const expected = count * (PARTS - 1);
    const doubles = [...perPart.values()].reduce((n, k) => n + Math.max(0, k - 1), 0);
    const missing = expected - perPart.size;
    const charged = [...perPart.values()].reduce((n, k) => n + k, 0);

    const baselineCount = Math.min(expected, Number(process.env.BENCH_BASELINE_CHARGES ?? 2_000));
    const baseline = await directCharges(env, template.payment_method_id, baselineCount, concurrency);

    const rate = charged / seconds;
    say('');
    say(
      `case installments: ${count} plans of ${PARTS} parts advanced to completion by the scheduler (concurrency ${concurrency})`,
    );
    say(`  ${os.cpus().length} cores shared by every process and the database`);
    say(
      `  platform  ${rate.toFixed(1).padStart(8)} parts/s     ${charged}/${expected} later parts charged, ${done}/${count} plans completed in ${seconds.toFixed(1)} s`,
    );
    say(
      `  baseline  ${baseline.rate.toFixed(1).padStart(8)} charges/s   (${baselineCount} ChargePaymentMethod calls straight to payments)`,
    );
    say(`  ratio     ${(rate / baseline.rate).toFixed(2)}x baseline (the scheduler's claim and the plan's writes)`);
    say(`  cpu       ${((cpu * 1000) / Math.max(1, charged)).toFixed(1)} ms of subscriptions + payments CPU per part`);
    say(`  per part: ${fmtDbWork(dbWork(dbBefore, dbAfter, charged))}`);
    say(`  double charges: ${doubles}   missing parts: ${missing}   (both must be 0)`);
    say('');
    const exact = doubles === 0 && missing === 0 && done === count;
    return {
      name: 'installments',
      platform: `${rate.toFixed(1)} parts/s, ${charged}/${expected} parts, ${doubles} double, ${missing} missing`,
      reference: `${baseline.rate.toFixed(1)} direct off-session charges/s`,
      ratio: `${(rate / baseline.rate).toFixed(2)}x`,
      target: 'every part once: 0 double, 0 missing',
      pass: exact,
      failed: !exact,
    };
  } finally {
    await env.stop();
  }
}
