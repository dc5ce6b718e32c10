import { Counter, Gauge, type Registry } from 'prom-client';
import type { ReencryptionMetrics } from './cases/reencryption';
import type { KycMetrics } from './ports';

/** KYC metrics the use cases count: submissions by route and outcome, decisions, payout accounts. */
export function kycMetrics(registry: Registry): KycMetrics {
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
    help: 'Payout account set-ups and changes, by change (created, updated, pending_review, unchanged) and mode',
    labelNames: ['change', 'mode'],
    registers: [registry],
  });
  const nameEnquiries = new Counter({
    name: 'ppay_kyc_name_enquiries_total',
    help: 'Bank-account name enquiries of in-house KYC, by outcome (found, not_found, unavailable, unconfigured) and mode',
    labelNames: ['outcome', 'mode'],
    registers: [registry],
  });
  return {
    nameEnquiry: (outcome, mode) => nameEnquiries.inc({ outcome, mode }),
    submitted: (route, status, mode) => submissions.inc({ route, status, mode }),
    decided: (action, actor, mode) => decisions.inc({ action, actor, mode }),
    payoutAccount: (change, mode) => payoutAccounts.inc({ change, mode }),
  };
}

/** Status changes of live connected-account cases made by the card gateway's account events, by new status. */
export function connectedAccountStatusMetrics(registry: Registry): (to: string) => void {
  const changes = new Counter({
    name: 'ppay_connected_account_status_changes_total',
    help: 'KYC status changes of connected-account cases made by the card gateway (its account events), by new status',
    labelNames: ['to'],
    registers: [registry],
  });
  return (to) => changes.inc({ to });
}

/** The re-encryption job's counts (Hardening 2 item 9): values moved to the current key, and what is left. */
export function reencryptionMetrics(registry: Registry): ReencryptionMetrics {
  const resealed = new Counter({
    name: 'ppay_kyc_sealed_values_resealed_total',
    help: 'KYC values moved to the current encryption key (or sealed from clear) by the re-encryption job',
    registers: [registry],
  });
  const outdated = new Gauge({
    name: 'ppay_kyc_sealed_values_outdated',
    help: 'KYC values still under an older key or in clear at the end of the last full re-encryption pass',
    registers: [registry],
  });
  const unreadable = new Gauge({
    name: 'ppay_kyc_sealed_values_unreadable',
    help: 'KYC values sealed under a key the ring does not hold, at the end of the last full re-encryption pass',
    registers: [registry],
  });
  return {
    resealed: (count) => resealed.inc(count),
    passFinished: (left) => {
      outdated.set(left.outdated);
      unreadable.set(left.unreadable);
    },
  };
}
