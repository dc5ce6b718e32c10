import { randomBytes } from 'node:crypto';
import { connectMongo, createLogger } from '@ppay/runtime';
import { submitCheckoutForm } from '../hosted-checkout';
import { createMerchant, type NewMerchant } from '../merchants';
import type { Platform } from '../platform';
import { startBenchPlatform } from './bench-infra';
import { cpuSecondsOfProcesses } from './proc';
import type { CaseResult } from './table';

/**
 * `npm run bench -- checkout-race` (issue 25): BENCH_CUSTOMERS (50) customers submit the hosted page's
 * payment form at once for the last BENCH_UNITS (5) units of one physical product, one unit each. Exactly
 * BENCH_UNITS must pay and make an order, the rest must see "sold out" (409) and never reach the card
 * processor, and the stock must end at 0. As baseline, in the same run, the same number of customers pay
 * at once for a product without a stock count (no hold to contend for): the race's wall time and CPU per
 * submit beside it show what the conditional hold costs.
 */

const say = (line: string) => process.stdout.write(`${line}\n`);
const CHECKOUT = ['payments', 'fx-pricing', 'gateway'] as const;

async function api(platform: Platform, m: NewMerchant, method: string, url: string, body?: unknown) {
  const res = await fetch(`${platform.gatewayUrl}/api/v1/partner${url}`, {
    method,
    headers: { 'x-api-key': m.api_key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { data?: Record<string, unknown>; error?: { code?: string } };
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json.error)}`);
  return json.data!;
}

/** One physical product (stock `stock`, or null: not counted) and `customers` sessions of one unit each. */
async function setUp(platform: Platform, m: NewMerchant, stock: number | null, customers: number) {
  const product = await api(platform, m, 'POST', '/products', {
    title: `Race mug ${randomBytes(3).toString('hex')}`,
    type: 'physical',
    price: { amount: 400_000, currency: 'NGN' },
    stock,
    shipping: { fee: { amount: 150_000, currency: 'NGN' }, countries: ['NG'] },
  });
  const productId = product.id as number;
  const sessions: string[] = [];
  for (let i = 0; i < customers; i++) {
    const s = await api(platform, m, 'POST', '/payments/sessions', {
      product_id: productId,
      quantity: 1,
      customer: { email: `buyer${i}@example.com`, first_name: 'Ada', last_name: 'Obi' },
    });
    sessions.push(s.session_id as string);
  }
  return { productId, sessions };
}

/** Every customer submits at once; the answers by status and the wall time and CPU of the burst. */
async function burst(platform: Platform, sessions: string[]) {
  const cpuBefore = cpuSecondsOfProcesses(platform, [...CHECKOUT]);
  const t0 = process.hrtime.bigint();
  const statuses = await Promise.all(
    sessions.map(async (id) => {
      return (await submitCheckoutForm(platform.gatewayUrl, id)).status;
    }),
  );
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = cpuSecondsOfProcesses(platform, [...CHECKOUT]) - cpuBefore;
  const count = (status: number) => statuses.filter((s) => s === status).length;
  return { paid: count(303), soldOut: count(409), other: statuses.length - count(303) - count(409), wallMs, cpu };
}

export async function checkoutRaceBench(): Promise<CaseResult> {
  const customers = Number(process.env.BENCH_CUSTOMERS ?? 50);
  const units = Number(process.env.BENCH_UNITS ?? 5);
  const bench = await startBenchPlatform();
  const payments = await connectMongo(bench.mongoUri, 'ppay_payments', createLogger('bench', 'silent'));
  const { platform } = bench;
  try {
    const m = await createMerchant(bench.bootstrap, {
      email: `race${randomBytes(4).toString('hex')}@example.com`,
      country: 'NG',
      currency: 'NGN',
    });
    const race = await setUp(platform, m, units, customers);
    const base = await setUp(platform, m, null, customers);
    const baseline = await burst(platform, base.sessions);
    const result = await burst(platform, race.sessions);

    // What the stores say once the consumers have caught up: sessions paid, charges, orders, stock.
    const raceSessions = await payments
      .collection('sessions')
      .find({ _id: { $in: race.sessions } } as never)
      .toArray();
    const paidSessions = raceSessions.filter((s) => s.status === 'completed').map((s) => String(s._id));
    const chargedForNothing = raceSessions.filter(
      (s) => s.status !== 'completed' && (s.payment !== null || Number(s.attempt_count) > 0),
    ).length;
    const charges = await payments.collection('charges').countDocuments({ reference: { $in: race.sessions } });
    let orders = 0;
    for (let deadline = Date.now() + 30_000; Date.now() < deadline;) {
      orders = await payments.collection('orders').countDocuments({ session_id: { $in: race.sessions } });
      if (orders >= paidSessions.length) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const stock = (await api(platform, m, 'GET', `/products/${race.productId}`)).stock as number;

    const exact =
      result.paid === units &&
      paidSessions.length === units &&
      charges === units &&
      orders === units &&
      result.soldOut === customers - units &&
      result.other === 0 &&
      chargedForNothing === 0 &&
      stock === 0 &&
      baseline.paid === customers;
    const perSubmit = (cpu: number) => ((cpu * 1000) / customers).toFixed(2);
    say('');
    say(`case checkout-race: ${customers} customers submit at once for the last ${units} units of one product`);
    say(
      `  race      paid ${result.paid} (sessions completed ${paidSessions.length}, charges ${charges}, orders ${orders}), ` +
        `sold out ${result.soldOut}, other answers ${result.other}, charged without stock ${chargedForNothing}, ` +
        `stock left ${stock}`,
    );
    say(`            ${result.wallMs.toFixed(0)} ms for the burst, ${perSubmit(result.cpu)} ms CPU per submit`);
    say(
      `  baseline  ${customers} customers, no stock count: paid ${baseline.paid}, ` +
        `${baseline.wallMs.toFixed(0)} ms for the burst, ${perSubmit(baseline.cpu)} ms CPU per submit`,
    );
    say(
      `  exact     ${exact ? 'PASS' : 'FAIL'} (want paid = orders = charges = ${units}, sold out ${customers - units}, stock 0)`,
    );
    say(`  (CPU of ${CHECKOUT.join(' + ')})`);
    say('');
    return {
      name: 'checkout-race',
      platform: `${result.paid} paid, ${orders} orders, ${result.soldOut} sold out, stock ${stock}; ${result.wallMs.toFixed(0)} ms`,
      reference: `${baseline.paid} paid without stock count; ${baseline.wallMs.toFixed(0)} ms`,
      ratio: `${(result.wallMs / baseline.wallMs).toFixed(2)}x`,
      target: `exactly ${units} paid, 0 oversold`,
      pass: exact,
      failed: false,
    };
  } finally {
    await payments.close();
    await bench.stop();
  }
}
