import { PlatformError } from '@ppay/kernel';
import { maskNumber, type KycCaseRecord, type PayoutAccountRecord } from '../cases/kyc-case';
import type { Sealer } from '../ports';
import { validateAccountNumber } from '../submissions/account-numbers';
import { isAbsent, readString } from '../submissions/fields';
import { nameMatchScore } from '../submissions/name-match';
import type { BankDirectory, PayoutInstitution } from './banks';
import { payoutGatewayFor } from './payout-account';
import { destinationFingerprint, numberDigest, sealedNumberDigest } from './payout-destination';

/** The bank fields of a payout request (African merchants); the partner's field names. */
export interface BankAccountFields {
  settlement_bank?: string;
  institution_id?: string;
  account_number?: string;
  account_name?: string;
}

const MAX_ACCOUNT_NAME = 200;
const present = (v: unknown) => !isAbsent(v);

type SealedNumber = Pick<PayoutAccountRecord, 'account_number_sealed' | 'account_number_masked'> & {
  account_number_digest: string | null;
};

/**
 * An account a request names, with the number it named in clear (validated; null when it kept the
 * current one): only the name enquiry reads it, and it is never stored.
 */
export interface NamedBankAccount {
  account: PayoutAccountRecord;
  number: string | null;
  institution: PayoutInstitution;
}

/** Whether a request names any part of a bank account. */
export function namesBankAccount(body: BankAccountFields): boolean {
  return [body.settlement_bank, body.institution_id, body.account_number, body.account_name].some(present);
}

/**
 * The bank payout account a request names, a new one or a change of the current one: its bank must pay out
 * in the currency the KYC submission locked (spec 2.7 settlement_currency), its number is validated for that
 * bank and sealed at once, and its name is scored against the KYC legal name for whoever pays out.
 */
export class BankPayoutAccounts {
  constructor(private readonly deps: { banks: BankDirectory; sealer: Sealer }) {}

  /** A complete new account: settlement_bank (or institution_id), account_number and account_name. */
  fromRequest(body: BankAccountFields, c: KycCaseRecord, salt: string, now: Date): NamedBankAccount {
    if (!present(body.settlement_bank) && !present(body.institution_id)) {
      throw new PlatformError('VALIDATION_FAILED', 'settlement_bank is required', { param: 'settlement_bank' });
    }
    const institution = this.lockedInstitution(body, c);
    const { clear, sealed } = this.sealed(
      institution,
      present(body.account_number) ? body.account_number : undefined,
      salt,
    );
    const name = readString(body.account_name, 'account_name', MAX_ACCOUNT_NAME, true);
    return { account: this.record(institution, sealed, name, c, salt, now, now), number: clear, institution };
  }

  /** An empty first-time setup adopts the bank account of the KYC submission (already validated). */
  fromKycSubmission(c: KycCaseRecord, salt: string, now: Date): PayoutAccountRecord {
    const kyc = c.bank_account;
    const institution = kyc && this.deps.banks.findById(kyc.institution_id);
    if (!kyc || !institution) {
      throw new PlatformError('VALIDATION_FAILED', 'settlement_bank is required', {
        param: 'settlement_bank',
        detail:
          'The KYC submission has no bank account to adopt; send settlement_bank, account_number and account_name',
      });
    }
    const number = {
      account_number_sealed: kyc.account_number_sealed,
      account_number_masked: kyc.account_number_masked,
      account_number_digest: sealedNumberDigest(salt, kyc.account_number_sealed),
    };
    return this.record(institution, number, kyc.account_name, c, salt, now, now);
  }

  /** `current` with what the request sends changed and the rest kept; a new bank needs its account number. */
  changed(
    body: BankAccountFields,
    current: PayoutAccountRecord,
    c: KycCaseRecord,
    salt: string,
    now: Date,
  ): NamedBankAccount {
    const bankGiven = present(body.settlement_bank) || present(body.institution_id);
    const institution = bankGiven
      ? this.lockedInstitution(body, c)
      : this.deps.banks.findById(current.institution_id ?? '');
    if (!institution) {
      throw new PlatformError('VALIDATION_FAILED', 'settlement_bank is required', {
        param: 'settlement_bank',
        detail: 'The bank of the current payout account is no longer supported',
      });
    }
    const bankChanged = institution.institution_id !== current.institution_id;
    if (bankChanged && !present(body.account_number)) {
      throw new PlatformError('VALIDATION_FAILED', 'account_number is required when the bank changes', {
        param: 'account_number',
      });
    }
    const named = present(body.account_number) ? this.sealed(institution, body.account_number, salt) : null;
    const number = named
      ? named.sealed
      : {
          account_number_sealed: current.account_number_sealed,
          account_number_masked: current.account_number_masked,
          // An account stored before digests existed: its sealed value stands for the number.
          account_number_digest:
            current.account_number_digest ??
            (current.account_number_sealed ? sealedNumberDigest(salt, current.account_number_sealed) : null),
        };
    const name = present(body.account_name)
      ? readString(body.account_name, 'account_name', MAX_ACCOUNT_NAME, true)
      : (current.account_name ?? '');
    return {
      account: this.record(institution, number, name, c, salt, current.created_at, now),
      number: named?.clear ?? null,
      institution,
    };
  }

  /** The institution a request names, which must pay out in the currency the KYC submission locked. */
  private lockedInstitution(body: BankAccountFields, c: KycCaseRecord): PayoutInstitution {
    const institution = this.deps.banks.resolve({
      settlement_bank: present(body.settlement_bank) ? body.settlement_bank : undefined,
      institution_id: present(body.institution_id) ? body.institution_id : undefined,
    });
    if (institution.currency !== c.settlement_currency) {
      const param = present(body.settlement_bank) ? 'settlement_bank' : 'institution_id';
      throw new PlatformError(
        'VALIDATION_FAILED',
        `${param} must be a bank paying out in ${c.settlement_currency}: the KYC submission locked this merchant's ` +
          `settlement currency (${institution.name} pays out in ${institution.currency})`,
        { param },
      );
    }
    return institution;
  }

  private sealed(institution: PayoutInstitution, raw: unknown, salt: string): { clear: string; sealed: SealedNumber } {
    const number = validateAccountNumber(institution, raw, 'account_number');
    if (!number.ok) throw number.error;
    return {
      clear: number.value,
      sealed: {
        account_number_sealed: this.deps.sealer.seal(number.value),
        account_number_masked: maskNumber(number.value),
        account_number_digest: numberDigest(salt, number.value),
      },
    };
  }

  private record(
    institution: PayoutInstitution,
    sealedNumber: SealedNumber,
    accountName: string,
    c: KycCaseRecord,
    salt: string,
    createdAt: Date,
    now: Date,
  ): PayoutAccountRecord {
    const account: PayoutAccountRecord = {
      kind: 'bank_account',
      currency: institution.currency,
      country: institution.country_iso_code,
      payment_gateway: payoutGatewayFor(institution.currency),
      payout_method: institution.account_number_type === 'phone_number' ? 'mobile_money' : 'bank_transfer',
      institution_id: institution.institution_id,
      bank_name: institution.name,
      account_number_type: institution.account_number_type,
      ...sealedNumber,
      account_name: accountName,
      gateway_account_id: null,
      name_match_score: c.legal_name ? Math.round(nameMatchScore(c.legal_name, accountName) * 10_000) / 10_000 : null,
      created_at: createdAt,
      updated_at: now,
    };
    return { ...account, fingerprint: destinationFingerprint(salt, { ...account, ...sealedNumber }) };
  }
}
