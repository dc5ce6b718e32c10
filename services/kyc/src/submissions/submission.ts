import type { AccountNumberType, BankDirectory } from '../payout-accounts/banks';
import { invalid } from './fields';
import type { ConnectedCurrency, InHouseCountry } from './routing';

/**
 * A KYC submission as the service works with it, normalised from the POST /marketplace/merchants/{id}/kyc
 * body (normalise-submission.ts): the in-house route's owner, business and bank account, or the
 * connected-account route's onboarding details.
 */

export type AccountType = 'individual' | 'registered_business';
export const ACCOUNT_TYPES: readonly AccountType[] = ['individual', 'registered_business'];

export interface Address {
  street: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  country: string | null;
}

export interface Owner {
  first_name: string;
  last_name: string;
  /** YYYY-MM-DD */
  date_of_birth: string;
  /** E.164 */
  phone_number: string | null;
  email: string | null;
  id_type: string;
  id_number: string;
  id_document_url: string | null;
  selfie_url: string | null;
  address: Address | null;
}

export interface Business {
  registered_name: string;
  registration_number: string;
  tax_id: string | null;
  address: Address | null;
}

export interface BankAccount {
  country: InHouseCountry;
  institution_id: string;
  /** The directory's name of the institution, verbatim. */
  bank_name: string;
  account_number_type: AccountNumberType;
  /** Digits for bank accounts, E.164 for mobile money. */
  account_number: string;
  account_name: string;
}

export interface InHouseSubmission {
  route: 'in_house';
  provider: 'service';
  format: 'structured' | 'flat';
  id_country: InHouseCountry;
  account_type: AccountType;
  /** = account_type (spec 2.7 names it business_type). */
  business_type: AccountType;
  /** Individual: "first last"; business: registered_name. */
  legal_name: string;
  owner: Owner;
  business: Business | null;
  bank_account: BankAccount;
  settlement_currency: string;
  /** id_country differs from the bank's country: never auto-approved. */
  country_mismatch: boolean;
}

export interface ConnectedSubmission {
  route: 'connected_account';
  provider: 'gateway';
  country: string;
  business_type: AccountType;
  preferred_currency: ConnectedCurrency | null;
  settlement_currency: ConnectedCurrency;
  gateway_region: 'EU' | 'US';
  return_url: string;
  refresh_url: string;
}

export type KycSubmissionInput = InHouseSubmission | ConnectedSubmission;

export interface NormaliseOptions {
  banks: BankDirectory;
  /** Reference time for the age check. */
  now?: Date;
}

/** `value` as an account type; VALIDATION_FAILED naming `param` otherwise. */
export function readAccountType(value: unknown, param: string): AccountType {
  const type = ACCOUNT_TYPES.find((t) => t === value);
  if (!type) throw invalid(param, `must be one of ${ACCOUNT_TYPES.join(', ')}`);
  return type;
}
