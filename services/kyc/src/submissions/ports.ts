import type { Mode } from '@ppay/kernel';
import type { PayoutInstitution } from '../payout-accounts/banks';

/**
 * A bank-account name enquiry at a verification provider (Nigeria's NIP name enquiry, as Paystack's
 * "resolve account number" or Flutterwave's "resolve account" expose it): who the bank says holds an
 * account. Live in-house KYC is approved automatically only on its answer, never on the name the
 * operator typed (Hardening 2 item 6).
 */
export interface AccountNameEnquiry {
  readonly provider: string;
  resolve(input: {
    institution: PayoutInstitution;
    account_number: string;
    /** The name the submission declares: only the sandbox provider uses it (its default answer). */
    declared_name: string;
    deadline?: Date;
  }): Promise<NameEnquiryAnswer>;
}

/** `unavailable`: the provider could not answer (down, timed out); the submission goes to review. */
export type NameEnquiryAnswer =
  { outcome: 'found'; account_name: string } | { outcome: 'not_found' } | { outcome: 'unavailable'; reason: string };

/**
 * Per mode. A mode without a provider (live, until one is configured) sends every in-house submission
 * to manual review; sandbox has the table-driven provider.
 */
export type NameEnquiryProviders = Partial<Record<Mode, AccountNameEnquiry>>;
