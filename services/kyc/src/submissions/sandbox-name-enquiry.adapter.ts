import type { AccountNameEnquiry, NameEnquiryAnswer } from './ports';

/**
 * The sandbox's name enquiry: a fixed table of test accounts (docs/decisions.md H2-6), like a payment
 * provider's test mode; every other account is held by the name the submission declares, so sandbox
 * keeps its NUBAN + name-match auto-approval. The numbers are valid NUBANs at Access Bank (CBN 044).
 */
export const SANDBOX_NAME_ENQUIRY_ACCOUNTS: Readonly<Record<string, NameEnquiryAnswer>> = {
  /** Held by someone else: the name match fails, the submission goes to review. */
  '0000000017': { outcome: 'found', account_name: 'SANDBOX OTHER HOLDER' },
  /** No such account at the bank. */
  '0000000024': { outcome: 'not_found' },
  /** The provider does not answer. */
  '0000000031': { outcome: 'unavailable', reason: 'sandbox provider outage' },
};

export class SandboxNameEnquiry implements AccountNameEnquiry {
  readonly provider = 'sandbox';

  async resolve(input: { account_number: string; declared_name: string }): Promise<NameEnquiryAnswer> {
    return (
      SANDBOX_NAME_ENQUIRY_ACCOUNTS[input.account_number] ?? { outcome: 'found', account_name: input.declared_name }
    );
  }
}
