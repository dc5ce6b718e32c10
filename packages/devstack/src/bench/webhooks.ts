import { createHmac, timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import { newEventId, type EventEnvelope, type PaymentOutcome } from '@ppay/kernel';
import { connectNats, createLogger, publishEvent, type NatsContext } from '@ppay/runtime';
import { createMerchant, type NewMerchant } from '../merchants';
import { startBenchPlatform } from './bench-infra';
import { commandOf, cpuSecondsOf, cpuSecondsOfProcesses, infraPids } from './proc';
import type { CaseResult } from './table';

/**
 * `npm run bench -- webhooks`: synthetic payment.failed events published to JetStream (failed, so
 * the ledger adds no wallet events) → webhooks service → signed POSTs to a loopback sink that
 * verifies every signature. Baseline in the same run: a bare keep-alive loop that HMACs and POSTs
 * the same bodies to the same sink. Then outcome → receipt latency at a steady 200 events/s.
 */
/**
 * One merchant (key) per sink port: the per-host socket pool is per host:port. BENCH_WEBHOOK_SINKS=1
 * puts the whole burst on one key (one busy merchant).
 */
const SINKS = Number(process.env.BENCH_WEBHOOK_SINKS ?? 4);
const N = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 2000);
const RATE = 200;
const RATE_SECONDS = Number(process.env.BENCH_WEBHOOK_RATE_SECONDS ?? 5);

interface Sink {
  port: number;
  secret: string;
}

function outcome(merchantId: number, at: Date): PaymentOutcome {
  const m = (amount: number) => ({ amount, currency: 'NGN' });
  return {
    charge_id: `ch_bench_${newEventId().slice(4)}`,
    transaction_id: 'txn_bench',
    merchant_id: merchantId,
    status: 'failed',
    payment_type: 'one_time',
    gateway: 'bench',
    reference: null,
    amount: m(500_000),
    total: m(500_000),
    transaction_fee: m(17_500),
    customer_pays_fees: false,
    breakdown: {
      customer_paid: m(500_000),
      merchant_gross: m(500_000),
      merchant_net: m(482_500),
      fees: { platform_fee: m(17_500), gateway_fee: m(0), total: m(17_500) },
    },
    customer: { email: 'bench@example.com', first_name: 'B', last_name: 'Ench', country: 'NG' },
    sub_merchant_id: null,
    failure_reason: 'declined',
    completed_at: at.toISOString(),
    session_id: null,
    product: null,
    subscription_frequency_key: null,
    metadata: {},
    installment: null,
    variation: null,
    quantity: null,
  };
}

function quantile(sorted: number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN;
}

export async function runWebhooksBench(): Promise<CaseResult> {
  const bench = await startBenchPlatform(
    {
      gateway: { RATE_LIMIT_DASHBOARD_PER_SECOND: '0' },
      // e.g. BENCH_WEBHOOKS_NODE_OPTIONS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile the service.
      ...(process.env.BENCH_WEBHOOKS_NODE_OPTIONS
        ? { webhooks: { NODE_OPTIONS: process.env.BENCH_WEBHOOKS_NODE_OPTIONS } }
        : {}),
    },
    { start: false },
  );
  const { platform } = bench;

  // The sink: verifies X-Service-Signature over the raw bytes, records receipt time per event.
  const received = new Map<string, number>();
  const latencies: number[] = [];
  let badSignatures = 0;
  const secretByPort = new Map<number, Buffer>();
  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const secret = secretByPort.get(req.socket.localPort ?? 0);
      const given = Buffer.from(String(req.headers['x-service-signature'] ?? ''), 'hex');
      const expected = secret ? createHmac('sha256', secret).update(raw).digest() : Buffer.alloc(0);
      if (given.length !== 32 || expected.length !== 32 || !timingSafeEqual(given, expected)) badSignatures++;
      const now = Date.now();
      const id = String(req.headers['x-service-event-id'] ?? '');
      if (!received.has(id)) {
        received.set(id, now);
        const sentAt = Date.parse(
          (JSON.parse(raw.toString('utf8')) as { data: { completed_at: string } }).data.completed_at,
        );
        latencies.push(now - sentAt);
      }
      res.writeHead(200).end();
    });
  };
  const servers: http.Server[] = [];
  let nats: NatsContext | undefined;
  try {
    await platform.start();
    const sinks: Sink[] = [];
    const merchants: NewMerchant[] = [];
    for (let i = 0; i < SINKS; i++) {
      const s = http.createServer({ keepAliveTimeout: 5_000 }, handler);
      servers.push(s);
      await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
      const port = (s.address() as AddressInfo).port;
      const m = await createMerchant(bench.bootstrap, {
        email: `wh${Date.now()}${i}@example.com`,
        country: 'NG',
        currency: 'NGN',
      });
      const res = await fetch(`${platform.gatewayUrl}/api/v1/partner/api-keys/${m.api_key_id}/webhook`, {
        method: 'PUT',
        headers: { 'x-id-key': m.user_token, 'content-type': 'application/json' },
        body: JSON.stringify({ webhook_url: `http://127.0.0.1:${port}/hooks` }),
      });
      if (!res.ok) throw new Error(`setting the webhook URL failed: ${res.status} ${await res.text()}`);
      secretByPort.set(port, Buffer.from(m.webhook_secret));
      sinks.push({ port, secret: m.webhook_secret });
      merchants.push(m);
    }
    nats = await connectNats(bench.natsUrl, 'bench-webhooks', createLogger('bench', 'warn'));
    const publish = (i: number) => {
      const m = merchants[i % SINKS]!;
      const at = new Date();
      const envelope = {
        event_id: newEventId(),
        subject: 'payments.payment.failed',
        occurred_at: at.toISOString(),
        merchant_id: m.merchant_id,
        mode: 'sandbox',
        data: outcome(m.merchant_id, at),
      } as EventEnvelope;
      return publishEvent(nats!, envelope);
    };
    const waitFor = async (count: number, timeoutMs: number) => {
      const end = Date.now() + timeoutMs;
      while (received.size < count && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      return received.size >= count;
    };

    // Warm-up.
    for (let i = 0; i < 40; i++) await publish(i);
    await waitFor(40, 30_000);

    // 1. Throughput: N events published as fast as JetStream takes them.
    const before = received.size;
    const cpu0 = cpuSecondsOfProcesses(platform, ['webhooks']);
    // Every other process on the machine during the burst, webhooks' work or not (other services poll).
    const others = [
      ...[...platform.pids()].filter(([name]) => name !== 'webhooks'),
      ...infraPids(bench.infraDir).map((pid) => [commandOf(pid), pid] as const),
    ].map(([name, pid]) => ({ name, pid, cpu0: cpuSecondsOf(pid) }));
    const bench0 = process.cpuUsage();
    const t0 = Date.now();
    for (let i = 0; i < N; i += 100)
      await Promise.all(Array.from({ length: Math.min(100, N - i) }, (_, j) => publish(i + j)));
    const done = await waitFor(before + N, 120_000);
    const platformSeconds = (Date.now() - t0) / 1000;
    const platformCpu = cpuSecondsOfProcesses(platform, ['webhooks']) - cpu0;
    const benchCpu = process.cpuUsage(bench0);
    const perDelivery = (seconds: number) => (seconds / N) * 1e6;
    const othersCpu = [
      ...others.map((p) => ({ name: p.name, us: perDelivery(cpuSecondsOf(p.pid) - p.cpu0) })),
      { name: 'bench publisher and sink', us: perDelivery((benchCpu.user + benchCpu.system) / 1e6) },
    ]
      .filter((p) => p.us >= 10)
      .sort((a, b) => b.us - a.us)
      .map((p) => `${p.name} ${p.us.toFixed(0)} µs`);
    const platformRate = (received.size - before) / platformSeconds;

    // 2. Baseline: the same bodies, HMAC + POST with keep-alive, 64 in flight (the platform's pool).
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const bodies = Array.from({ length: N }, (_, i) =>
      JSON.stringify({ event_id: `evt_base_${i}`, data: outcome(merchants[i % SINKS]!.merchant_id, new Date()) }),
    );
    const post = (i: number) =>
      new Promise<void>((resolve, reject) => {
        const sink = sinks[i % SINKS]!;
        const body = bodies[i]!;
        const req = http.request(
          {
            host: '127.0.0.1',
            port: sink.port,
            path: '/hooks',
            method: 'POST',
            agent,
            headers: {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
              'x-service-event-id': `evt_base_${i}`,
              'x-service-signature': createHmac('sha256', sink.secret).update(body).digest('hex'),
            },
          },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const cpuB0 = process.cpuUsage();
    const b0 = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < N) await post(next++);
      }),
    );
    const baseSeconds = (Date.now() - b0) / 1000;
    const baseCpu = process.cpuUsage(cpuB0);
    const baseRate = N / baseSeconds;
    agent.destroy();

    // 3. Latency at 200 events/s: outcome time (the event's completed_at) → receipt at the sink.
    latencies.length = 0;
    const start = received.size;
    const total = RATE * RATE_SECONDS;
    const r0 = Date.now();
    const pending: Promise<unknown>[] = [];
    for (let i = 0; i < total; i++) {
      const due = r0 + (i * 1000) / RATE;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pending.push(publish(i));
    }
    await Promise.all(pending);
    await waitFor(start + total, 60_000);
    const sorted = latencies.slice(0, total).sort((a, b) => a - b);
    const p50 = quantile(sorted, 0.5);
    const p99 = quantile(sorted, 0.99);

    const ratio = platformRate / baseRate;
    process.stdout.write(
      [
        '',
        'case webhooks: payment.failed events on JetStream → webhooks service → signed POST to a verifying loopback sink',
        `  ${N} events over ${SINKS} merchants/sinks, ${os.cpus().length} cores shared by publisher, sink, platform and baseline`,
        `  platform  ${platformRate.toFixed(0).padStart(6)} deliveries/s   ${((platformCpu / N) * 1e6).toFixed(0)} µs webhooks-process CPU per delivery${done ? '' : '   (INCOMPLETE)'}`,
        `            CPU per delivery of the other processes meanwhile: ${othersCpu.join(', ')}`,
        `  baseline  ${baseRate.toFixed(0).padStart(6)} deliveries/s   ${((baseCpu.user + baseCpu.system) / N).toFixed(0)} µs CPU per delivery (bare HMAC + keep-alive POST loop, 64 in flight; sink in the same process)`,
        `  ratio     ${ratio.toFixed(2)}x baseline (target >= 0.5x) ${ratio >= 0.5 ? 'PASS' : 'BELOW TARGET'};   >= 1000 deliveries/s: ${platformRate >= 1000 ? 'PASS' : 'BELOW TARGET'}`,
        `  latency   outcome → receipt at ${RATE} events/s for ${RATE_SECONDS}s: p50 ${p50} ms, p99 ${p99} ms (target p99 <= 500 ms) ${p99 <= 500 ? 'PASS' : 'BELOW TARGET'}`,
        `  signatures that failed verification: ${badSignatures}`,
        '',
      ].join('\n'),
    );
    const perDeliveryUs = (platformCpu / N) * 1e6;
    const baseUs = (baseCpu.user + baseCpu.system) / N;
    return {
      name: 'webhooks',
      platform: `${platformRate.toFixed(0)} deliveries/s, ${perDeliveryUs.toFixed(0)} µs cpu/delivery, p99 ${p99} ms at ${RATE}/s`,
      reference: `bare HMAC + POST loop ${baseRate.toFixed(0)} deliveries/s, ${baseUs.toFixed(0)} µs cpu/delivery`,
      ratio: `${ratio.toFixed(2)}x deliveries/s`,
      target: '>= 0.5x, >= 1,000/s, p99 <= 500 ms',
      pass: ratio >= 0.5 && platformRate >= 1000 && p99 <= 500,
      failed: badSignatures > 0 || !done,
    };
  } finally {
    await nats?.nc.drain().catch(() => undefined);
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
    await bench.stop();
  }
}
