import { randomBytes } from 'node:crypto';
import { connectMongo, createLogger } from '@ppay/runtime';
import type { Connection } from 'mongoose';
import { createMerchant, type NewMerchant } from '../merchants';
import { startBenchPlatform } from './bench-infra';
import { cpuSecondsOfProcesses } from './proc';
import type { CaseResult } from './table';

/**
 * `npm run bench -- orders-list`: p99 of a GET /orders page (20, newest first) for a merchant with
 * 1,000 orders (BENCH_SMALL) and one with 100,000 (BENCH_ORDERS), alternating, in the same run. The
 * orders are inserted straight into payments' database, with payments stopped (as the balance bench
 * does): what payments stores for a paid order (services/payments/src/orders/order.repo.ts). Target: the
 * large merchant's p99 ≤ 2× the small one's.
 */

const say = (line: string) => process.stdout.write(`${line}\n`);
const ngn = (amount: number) => ({ amount, currency: 'NGN' });

async function seedOrders(payments: Connection, merchantId: number, count: number): Promise<void> {
  const BATCH = 2_000;
  const prefix = randomBytes(4).toString('hex');
  const start = Date.now() - count * 1_000;
  for (let i = 0; i < count; i += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, count - i) }, (_, k) => {
      const n = i + k;
      const id = `ord_${prefix}${String(n).padStart(12, '0')}`;
      const at = new Date(start + n * 1_000);
      return {
        _id: id,
        merchant_id: merchantId,
        mode: 'sandbox',
        status: n % 3 === 0 ? 'fulfilled' : 'paid',
        product: { id: 7, title: 'Mug', type: 'physical' },
        product_id: 7,
        variation: null,
        quantity: 1,
        amount: {
          customer_paid: ngn(500_000),
          merchant_gross: ngn(500_000),
          merchant_net: ngn(482_500),
          fees: { platform_fee: ngn(17_500), gateway_fee: ngn(0), total: ngn(17_500) },
        },
        shipping_address: {
          name: 'Ada Obi',
          line1: '1 Marina',
          line2: null,
          city: 'Lagos',
          state: null,
          postal_code: null,
          country: 'NG',
          phone: null,
        },
        customer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Obi' },
        charge_id: `ch_${prefix}${n}`,
        session_id: `cs_${prefix}${n}`,
        fulfilments: [],
        cancellation: null,
        stock_return: 'none',
        delivered_at: null,
        version: 0,
        list_key: `${at.toISOString()}|${id}`,
        unfinished: false,
        created_at: at,
        updated_at: at,
        outbox: [],
        outbox_pending_since: null,
      };
    });
    await payments.collection('orders').insertMany(docs as never[], { ordered: false });
  }
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

export async function ordersListBench(): Promise<CaseResult> {
  const small = Number(process.env.BENCH_SMALL ?? 1_000);
  const large = Number(process.env.BENCH_ORDERS ?? 100_000);
  const requests = Number(process.env.BENCH_REQUESTS ?? 200);
  const bench = await startBenchPlatform();
  const payments = await connectMongo(bench.mongoUri, 'ppay_payments', createLogger('bench', 'silent'));
  const { platform } = bench;
  try {
    const email = () => `bench${randomBytes(4).toString('hex')}@example.com`;
    const a = await createMerchant(bench.bootstrap, { email: email(), country: 'NG', currency: 'NGN' });
    const b = await createMerchant(bench.bootstrap, { email: email(), country: 'NG', currency: 'NGN' });
    say(`seeding ${small.toLocaleString('en')} and ${large.toLocaleString('en')} orders straight into ppay_payments…`);
    const t0 = Date.now();
    await platform.stopProcess('payments');
    await seedOrders(payments, a.merchant_id, small);
    await seedOrders(payments, b.merchant_id, large);
    await platform.startProcess('payments');
    say(`  seeded in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    // Every third seeded order is fulfilled (seedOrders): a full page needs 20 paid ones.
    const pageOf = (count: number) => Math.min(20, count - Math.ceil(count / 3));
    const expected = new Map([
      [a.merchant_id, pageOf(small)],
      [b.merchant_id, pageOf(large)],
    ]);
    const read = async (m: NewMerchant) => {
      const t = process.hrtime.bigint();
      const res = await fetch(`${platform.gatewayUrl}/api/v1/partner/orders?limit=20&status=paid`, {
        headers: { 'x-api-key': m.api_key },
      });
      const body = (await res.json()) as { data?: { orders: unknown[] } };
      const got = body.data?.orders.length;
      if (!res.ok || got !== expected.get(m.merchant_id)) throw new Error(`GET /orders: ${res.status}, ${got} orders`);
      return Number(process.hrtime.bigint() - t) / 1e6;
    };
    for (let deadline = Date.now() + 60_000; ;) {
      const ok = await read(a).then(
        () => true,
        (err: unknown) => (Date.now() > deadline ? Promise.reject(err) : false),
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    for (let i = 0; i < 10; i++) await Promise.all([read(a), read(b)]);
    const times: [number[], number[]] = [[], []];
    const cpuBefore = cpuSecondsOfProcesses(platform, ['gateway', 'payments']);
    for (let i = 0; i < requests; i++) {
      times[0].push(await read(a));
      times[1].push(await read(b));
    }
    const cpu = cpuSecondsOfProcesses(platform, ['gateway', 'payments']) - cpuBefore;
    const [p99Small, p99Large] = times.map((list) =>
      quantile(
        [...list].sort((x, y) => x - y),
        0.99,
      ),
    ) as [number, number];
    const ratio = p99Large / p99Small;
    say('');
    say(`case orders-list: GET /orders?status=paid&limit=20, ${requests} requests per merchant, alternating`);
    say(`  ${small.toLocaleString('en').padStart(9)} orders (baseline)   p99 ${p99Small.toFixed(1)} ms`);
    say(`  ${large.toLocaleString('en').padStart(9)} orders              p99 ${p99Large.toFixed(1)} ms`);
    say(`  ratio     ${ratio.toFixed(2)}x p99 (target <= 2) ${ratio <= 2 ? 'PASS' : 'ABOVE TARGET'}`);
    say(`  cpu       ${((cpu * 1000) / (2 * requests)).toFixed(2)} ms of gateway+payments CPU per page`);
    say('');
    return {
      name: 'orders-list',
      platform: `p99 ${p99Large.toFixed(1)} ms at ${large.toLocaleString('en')} orders`,
      reference: `p99 ${p99Small.toFixed(1)} ms at ${small.toLocaleString('en')} orders`,
      ratio: `${ratio.toFixed(2)}x`,
      target: '<= 2x',
      pass: ratio <= 2,
      failed: false,
    };
  } finally {
    await payments.close();
    await bench.stop();
  }
}
