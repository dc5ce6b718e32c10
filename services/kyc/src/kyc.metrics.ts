import { Counter, type Registry } from 'prom-client';
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
    help: 'Payout accounts set up or changed, by change (created, updated) and mode',
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
