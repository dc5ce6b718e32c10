import { budgetMs, type Mode } from '@ppay/kernel';
import type { PayoutInstitution } from '../payout-accounts/banks';
import type { KycMetrics } from '../ports';
import type { NameEnquiryEvidence } from './auto-approval';
import type { NameEnquiryAnswer, NameEnquiryProviders } from './ports';

/**
 * Asks the mode's verification provider who holds a bank account. Never an error for the caller: a mode
 * without a provider answers `unconfigured`, and a provider that fails or does not answer in time
 * `unavailable` (the caller then sends the account to a reviewer). The wait is bounded by the caller's
 * deadline and by ENQUIRY_MAX_MS, so a hanging provider cannot hold the request.
 */
export const ENQUIRY_MAX_MS = 5_000;

export interface NameEnquiryRequest {
  institution: PayoutInstitution;
  account_number: string;
  declared_name: string;
  mode: Mode;
  deadline?: Date;
}

export async function askNameEnquiry(
  providers: NameEnquiryProviders,
  req: NameEnquiryRequest,
  metrics?: Pick<KycMetrics, 'nameEnquiry'>,
): Promise<NameEnquiryEvidence> {
  const provider = providers[req.mode];
  if (!provider) {
    metrics?.nameEnquiry('unconfigured', req.mode);
    return { provider: null, outcome: 'unconfigured', account_name: null };
  }
  const answer = await bounded(req.deadline, () =>
    provider.resolve({
      institution: req.institution,
      account_number: req.account_number,
      declared_name: req.declared_name,
      deadline: req.deadline,
    }),
  ).catch((): NameEnquiryAnswer => ({ outcome: 'unavailable', reason: 'the provider failed' }));
  metrics?.nameEnquiry(answer.outcome, req.mode);
  return {
    provider: provider.provider,
    outcome: answer.outcome,
    account_name: answer.outcome === 'found' ? answer.account_name : null,
  };
}

async function bounded(deadline: Date | undefined, ask: () => Promise<NameEnquiryAnswer>): Promise<NameEnquiryAnswer> {
  const ms = budgetMs(deadline, ENQUIRY_MAX_MS);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<NameEnquiryAnswer>((resolve) => {
    timer = setTimeout(() => resolve({ outcome: 'unavailable', reason: 'the provider timed out' }), ms);
  });
  try {
    return await Promise.race([ask(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
