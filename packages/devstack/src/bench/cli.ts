import { disputesBench } from './disputes';
import { installmentsBench } from './installments';
import { approveRaceBench, balanceBench } from './money';
import { ordersListBench } from './orders';
import { renewalsBench, subscriptionsListBench } from './subscriptions';
import { runWebhooksBench } from './webhooks';
import { grpcOptionsBench } from './grpc-options';
import { CASES, runHttpCase } from './http-cases';
import { memoryBench } from './memory-bench';
import { printTable, type CaseResult } from './table';

/**
 * `npm run bench -- <case>|all`: every case measures the platform beside its ceiling or baseline in the
 * same run and prints both, their ratio and the CPU per request. The HTTP cases are in http-cases.ts;
 * the scenarios below each run their own. All traffic goes to 127.0.0.1, bounded.
 */
/** Cases that are not one HTTP request under load: each runs its own scenario and prints its own figures. */
const SCENARIOS: Record<string, { description: string; run(): Promise<CaseResult> }> = {
  renewals: {
    description: '10,000 subscriptions falling due at once, renewed by the scheduler (renewals/s, double charges)',
    run: renewalsBench,
  },
  installments: {
    description:
      '5,000 (BENCH_PLANS) installment plans of 3 parts advanced to completion: parts/s, double and missing charges',
    run: installmentsBench,
  },
  'subscriptions-list': {
    description: 'p99 of a sorted GET /subscriptions page at 1,000 vs 100,000 subscriptions of one merchant',
    run: subscriptionsListBench,
  },
  webhooks: {
    description: 'event fan-out and signed delivery against a bare HMAC + POST loop',
    run: runWebhooksBench,
  },
  balance: {
    description: 'p99 of a sub-merchant balance read at 1,000 vs 1,000,000 (BENCH_LARGE) ledger entries',
    run: balanceBench,
  },
  'approve-race': {
    description: 'reserve/approve cycles per second with concurrent approvals, and double spends (must be 0)',
    run: approveRaceBench,
  },
  disputes: {
    description:
      'submit / accept / outcome calls racing on each of 100 disputes (double effects: 0), and GET /disputes and /payments/charges pages at 1,000 vs 1,000,000 rows of other merchants',
    run: disputesBench,
  },
  'orders-list': {
    description: 'p99 of a GET /orders page at 1,000 vs 100,000 (BENCH_ORDERS) orders of one merchant',
    run: ordersListBench,
  },
  'grpc-options': {
    description:
      'grpc-js channel and server options (channelz, retries, channels, streams): one hop, interleaved rounds',
    run: grpcOptionsBench,
  },
  memory: {
    description: 'RSS of every process after two consecutive 30 s (BENCH_MEMORY_SECONDS) runs of a mixed load',
    run: () => memoryBench(),
  },
};

function usage(): number {
  process.stderr.write(
    `Usage: npm run bench -- <case>|all\nCases:\n${[...Object.entries(CASES), ...Object.entries(SCENARIOS)]
      .map(([k, c]) => `  ${k}: ${c.description}`)
      .join('\n')}\n  all: every case above, then one table\n`,
  );
  return 64;
}

async function runCase(name: string): Promise<CaseResult> {
  const scenario = SCENARIOS[name];
  if (scenario) return scenario.run();
  return runHttpCase(name, CASES[name]!);
}

async function main(): Promise<number> {
  const name = process.argv[2];
  if (name === 'all') {
    const results: CaseResult[] = [];
    for (const each of [...Object.keys(CASES), ...Object.keys(SCENARIOS)]) {
      try {
        results.push(await runCase(each));
      } catch (err) {
        process.stderr.write(`case ${each} failed: ${(err as Error).stack ?? String(err)}\n`);
        results.push({
          name: each,
          platform: 'error',
          reference: '',
          ratio: '',
          target: '',
          pass: false,
          failed: true,
        });
      }
    }
    printTable(results);
    // Targets are reported, not enforced (a shared machine varies 2x); errors and failed requests are.
    return results.some((r) => r.failed) ? 1 : 0;
  }
  if (!name || (!CASES[name] && !SCENARIOS[name])) return usage();
  const result = await runCase(name);
  return result.failed ? 1 : 0;
}

void main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
