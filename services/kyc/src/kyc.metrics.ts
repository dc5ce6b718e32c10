import { Counter, Gauge, type Registry } from 'prom-client';
import type { Mode } from '@ppay/kernel';
import type { KycMetrics } from './ports';

/** KYC metrics: submissions by route and outcome, decisions, payout accounts, the review queue. */
export function kycMetrics(registry: Registry): KycMetrics & {
  queue(mode: Mode, count: number, oldest: Date | null, now: Date): void;
} {
  const submissions = new Counter({
    name: 'ppay_kyc_submissions_total',
    help: 'KYC submissions accepted, by route (in_house, connected_account), resulting status and mode',
    labelNames: ['route', 'status', 'mode'],
    registers: [registry],
  });
  const decisions = new Counter({
    name: 'ppay_kyc_decisions_total',
    help: 'KYC review decisions, by action, actor (admin, sandbox, gateway) and mode',
    labelNames: ['action', 'actor', 'mode'],
    registers: [registry],
  });
  const payoutAccounts = new Counter({
    name: 'ppay_kyc_payout_account_changes_total',
    help: 'Payout accounts set up or changed, by change (created, updated) and mode',
    labelNames: ['change', 'mode'],
    registers: [registry],
  });
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
    submitted: (route, status, mode) => submissions.inc({ route, status, mode }),
    decided: (action, actor, mode) => decisions.inc({ action, actor, mode }),
    payoutAccount: (change, mode) => payoutAccounts.inc({ change, mode }),
    queue(mode, count, oldest, now) {
      queueSize.set({ mode }, count);
      queueAge.set({ mode }, oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0);
    },
  };
}
