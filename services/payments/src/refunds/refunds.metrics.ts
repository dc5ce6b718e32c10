import { Counter, type Registry } from 'prom-client';

/** Refund outcomes as the processor settled them (succeeded, failed), by charge currency. */
export function refundMetrics(registry: Registry) {
  return new Counter({
    name: 'ppay_refunds_total',
    help: 'Refunds settled by the processor, by status (succeeded, failed) and charge currency',
    labelNames: ['status', 'currency'],
    registers: [registry],
  });
}
