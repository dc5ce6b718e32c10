import type { ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import * as http from 'node:http';
import * as os from 'node:os';
import { newEventId, type EventEnvelope, type PaymentOutcome } from '@ppay/kernel';
import { connectNats, createLogger, publishEvent, type NatsContext } from '@ppay/runtime';
import { createMerchant, type NewMerchant } from '../merchants';
import { startBenchPlatform } from './bench-infra';
import { dbSnapshot, fmtDbWork } from './db-work';
import { namedPids } from './process-metrics';
import type { CaseResult } from './table';
import { VerifyingSinks } from './webhook-sinks';
import { combineBursts, measureBurst, startDurableLoop, storedShapes } from './webhooks-durable';
import { DURABLE_SUBJECT, type DurableReceiver } from './webhooks-durable-docs';
import { fmtCpuUs, ratioLine, tableFigures, verdictOf, WEBHOOK_TARGETS } from './webhooks-report';

/**
 * `npm run bench -- webhooks`: synthetic payment.failed events published to JetStream (failed, so
 * the ledger adds no wallet events) → webhooks service → signed POSTs to loopback sinks that verify
 * every signature. Two baselines in the same run, posting to the same sinks: the durable baseline
 * (webhooks-durable-loop.ts: the same durable work per delivery and nothing else, its own process)
 * and a bare keep-alive loop that HMACs and POSTs the same bodies from the bench process. Then
 * outcome → receipt latency at a steady 200 events/s.
 */
/**
 * One merchant (key) per sink port: the per-host socket pool is per host:port. BENCH_WEBHOOK_SINKS=1
 * puts the whole burst on one key (one busy merchant).
 */
const SINKS = Number(process.env.BENCH_WEBHOOK_SINKS ?? 4);
const N = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 2000);
const RATE = 200;
const RATE_SECONDS = Number(process.env.BENCH_WEBHOOK_RATE_SECONDS ?? 5);
/** Events per side before anything is measured. */
const WARM_UP = Math.max(40, Math.round(N / 10));

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
  const sinks = new VerifyingSinks();
  let nats: NatsContext | undefined;
  let loop: ChildProcess | undefined;
  try {
    await platform.start();
    const receivers: DurableReceiver[] = [];
    const merchants: NewMerchant[] = [];
    for (let i = 0; i < SINKS; i++) {
      const port = await sinks.open();
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
      sinks.setSecret(port, m.webhook_secret);
      receivers.push({ merchant_id: m.merchant_id, key_id: m.api_key_id, port, secret: m.webhook_secret });
      merchants.push(m);
    }
    loop = await startDurableLoop({ mongoUri: bench.mongoUri, natsUrl: bench.natsUrl, receivers });
    nats = await connectNats(bench.natsUrl, 'bench-webhooks', createLogger('bench', 'warn'));
    const publisher = (subject: string) => (i: number) => {
      const m = merchants[i % SINKS]!;
      const at = new Date();
      const envelope = {
        event_id: newEventId(),
        subject,
        occurred_at: at.toISOString(),
        merchant_id: m.merchant_id,
        mode: 'sandbox',
        data: outcome(m.merchant_id, at),
      } as unknown as EventEnvelope;
      return publishEvent(nats!, envelope);
    };
    const toPlatform = publisher('payments.payment.failed');
    const toDurable = publisher(DURABLE_SUBJECT);

    // Warm-up, both sides: JIT, connections, the stream and database files.
    for (const publish of [toPlatform, toDurable]) {
      const start = sinks.received.size;
      for (let i = 0; i < WARM_UP; i += 20)
        await Promise.all(Array.from({ length: Math.min(20, WARM_UP - i) }, (_, j) => publish(i + j)));
      await sinks.waitFor(start + WARM_UP, 30_000);
    }

    // 1. Throughput: N events published as fast as JetStream takes them, to the platform and to the
    // durable baseline in the order platform, durable, durable, platform, so each side has a burst
    // early and late in the run (the first burst after warm-up measured slower whichever side it was).
    // CPU per delivery of every process on the machine, whoever's work it is.
    const pids = new Map([
      ...namedPids(platform, bench.infraDir),
      ['durable loop', loop.pid!],
      ['bench publisher and sink', process.pid],
    ]);
    const burst = (publish: (i: number) => Promise<unknown>) =>
      measureBurst({
        n: N,
        publish,
        received: () => sinks.received.size,
        waitFor: (count, timeoutMs) => sinks.waitFor(count, timeoutMs),
        pids,
        snapshot: () => dbSnapshot(bench.ferretdbMetricsUrl, bench.mongoUri),
      });
    const platformFirst = await burst(toPlatform);
    const durableBursts = [await burst(toDurable), await burst(toDurable)];
    const platformBurst = combineBursts([platformFirst, await burst(toPlatform)]);
    const durableBurst = combineBursts(durableBursts);

    // 2. Bare loop: the same bodies, HMAC + POST with keep-alive, 64 in flight.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const bodies = Array.from({ length: N }, (_, i) =>
      JSON.stringify({ event_id: `evt_base_${i}`, data: outcome(merchants[i % SINKS]!.merchant_id, new Date()) }),
    );
    const post = (i: number) =>
      new Promise<void>((resolve, reject) => {
        const sink = receivers[i % SINKS]!;
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
    const baseUs = (baseCpu.user + baseCpu.system) / N;
    agent.destroy();

    // 3. Latency at 200 events/s: outcome time (the event's completed_at) → receipt at the sink.
    sinks.latencies.length = 0;
    const start = sinks.received.size;
    const total = RATE * RATE_SECONDS;
    const r0 = Date.now();
    const pending: Promise<unknown>[] = [];
    for (let i = 0; i < total; i++) {
      const due = r0 + (i * 1000) / RATE;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pending.push(toPlatform(i));
    }
    await Promise.all(pending);
    await sinks.waitFor(start + total, 60_000);
    const sorted = sinks.latencies.slice(0, total).sort((a, b) => a - b);
    const p50 = quantile(sorted, 0.5);
    const p99 = quantile(sorted, 0.99);

    const figures = {
      platform: platformBurst,
      durable: durableBurst,
      bare: { rate: baseRate, cpuUs: baseUs },
      p99,
    };
    const verdict = verdictOf(figures);
    const rate = (r: number) => r.toFixed(0).padStart(6);
    const bursts = (rates: number[]) => rates.map((r) => r.toFixed(0)).join(', ');
    const incomplete = (done: boolean) => (done ? '' : '   (INCOMPLETE)');
    process.stdout.write(
      [
        '',
        'case webhooks: payment.failed events on JetStream → webhooks service → signed POST to a verifying loopback sink',
        `  ${N} events per burst over ${SINKS} merchants/sinks, bursts platform, durable, durable, platform; ${os.cpus().length} cores shared by publisher, sinks, platform and baselines`,
        `  platform  ${rate(platformBurst.rate)} deliveries/s (bursts ${bursts(platformBurst.rates)})${incomplete(platformBurst.done)}`,
        `            CPU per delivery by process: ${fmtCpuUs(platformBurst.cpu)}`,
        `            ${fmtDbWork(platformBurst.db)}`,
        `  durable   ${rate(durableBurst.rate)} deliveries/s (bursts ${bursts(durableBurst.rates)})${incomplete(durableBurst.done)}`,
        `            (its own process: durable JetStream pull consumer → event insert → HMAC → POST → delivery insert → ack; batched inserts, ${process.env.BENCH_WEBHOOK_DURABLE_INDEXES === '1' ? 'the platform’s secondary indexes' : 'no secondary indexes'}, 256 events in flight, 8 sockets per sink)`,
        `            CPU per delivery by process: ${fmtCpuUs(durableBurst.cpu)}`,
        `            ${fmtDbWork(durableBurst.db)}`,
        `  bare loop ${rate(baseRate)} deliveries/s   ${baseUs.toFixed(0)} µs CPU per delivery (HMAC + keep-alive POST, 64 in flight; in the bench process with the sinks)`,
        `  stored    ${await storedShapes(bench.mongoUri)}`,
        ratioLine(verdict),
        `  latency   outcome → receipt at ${RATE} events/s for ${RATE_SECONDS}s: p50 ${p50} ms, p99 ${p99} ms (target p99 <= ${WEBHOOK_TARGETS.p99Ms} ms) ${p99 <= WEBHOOK_TARGETS.p99Ms ? 'PASS' : 'BELOW TARGET'}`,
        `  signatures that failed verification: ${sinks.badSignatures}`,
        '',
      ].join('\n'),
    );
    return {
      name: 'webhooks',
      ...tableFigures(figures, verdict),
      failed: sinks.badSignatures > 0 || !platformBurst.done || !durableBurst.done,
    };
  } finally {
    loop?.kill('SIGTERM');
    await nats?.nc.drain().catch(() => undefined);
    sinks.close();
    await bench.stop();
  }
}
