import { Gauge, type Registry } from 'prom-client';
import type { KycCaseRepository } from '../ports';

/**
 * The live and sandbox review queues as gauges (size, age of the oldest submission), refreshed by a job:
 * the 24-hour review promise is watched on them (dashboards, alert rule).
 */
export function reviewQueueMetrics(
  registry: Registry,
  cases: Pick<KycCaseRepository, 'queueStats'>,
  now: () => Date = () => new Date(),
): { refresh(): Promise<void> } {
  const queueSize = new Gauge({
    name: 'ppay_kyc_review_queue_size',
    help: 'KYC submissions waiting for review (pending_review), by mode',
    labelNames: ['mode'],
    registers: [registry],
  });
  const queueAge = new Gauge({
    name: 'ppay_kyc_review_queue_oldest_age_seconds',
    help: 'Age of the oldest KYC submission waiting for review (the promise is 24 hours), by mode',
    labelNames: ['mode'],
    registers: [registry],
  });
  return {
    async refresh() {
      for (const mode of ['live', 'sandbox'] as const) {
        const { count, oldest } = await cases.queueStats(mode);
        queueSize.set({ mode }, count);
        queueAge.set({ mode }, oldest ? Math.max(0, (now().getTime() - oldest.getTime()) / 1000) : 0);
      }
    },
  };
}
