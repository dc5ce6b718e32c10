import { PlatformError, type Mode } from '@ppay/kernel';
import { validateAccountNumber } from '../submissions/account-numbers';
import type { BankDirectory, PayoutBank, PayoutInstitution } from './banks';
import {
  maskNumber,
  payoutAccountUpdated,
  payoutGatewayFor,
  type HistoryEntry,
  type KycCaseRecord,
  type PayoutAccountRecord,
} from '../cases/kyc-case';
import type { OperatorCaller } from '../submissions/kyc-submissions';
import { isAbsent, readString, readUrl } from '../submissions/fields';
import { nameMatchScore } from '../submissions/name-match';
import { issueLink, withNewLink } from '../onboarding/onboarding-links';
import { NO_METRICS, type KycCaseRepository, type KycMetrics, type Sealer, type SubMerchantDirectory } from '../ports';
import { isInHouseCountry } from '../submissions/routing';

/**
 * Payout set-up and update (spec 4.9, 7.4) and the payout account other services read.
 *
 * The branch is the sub-merchant's country (spec 4.9: "African countries (NG, GH, ZA, KE)" send bank
 * fields, "other countries" send callback_url and redo onboarding). The account must settle in the
 * currency the KYC submission locked (spec 2.7 settlement_currency), so a bank of another country is
 * refused. Checks run in the order of the 7.4 table after the operator (403), the active relationship
 * (404) and the merchant's business record (404 "Merchant portfolio not found").
 */

export interface PayoutInput {
  settlement_bank?: string;
  institution_id?: string;
  account_number?: string;
  account_name?: string;
  callback_url?: string;
}

export interface PayoutServiceDeps {
  cases: KycCaseRepository;
  directory: SubMerchantDirectory;
  sealer: Sealer;
  banks: BankDirectory;
  metrics?: KycMetrics;
  now?: () => Date;
}

interface MerchantFacts {
  id: number;
  country: string;
  baseline_currency: string;
}

export type PayoutResult =
  | { kind: 'bank_account'; kyc: KycCaseRecord; account: PayoutAccountRecord; merchant: MerchantFacts }
  | {
      kind: 'connected_account';
      kyc: KycCaseRecord;
      merchant: MerchantFacts;
      token: string;
      client_secret: string;
      expires_at: Date;
    };

/** Spec 4.9 payout response of either branch (the gateway sends the fields of `kind`). */
export function payoutSettingsResource(r: PayoutResult) {
  const base = {
    kind: r.kind,
    merchant_id: r.merchant.id,
    baseline_currency: r.merchant.baseline_currency,
    country: r.merchant.country,
    settlement_currency: r.kyc.settlement_currency,
  };
  if (r.kind === 'connected_account') {
    return { ...base, client_secret: r.client_secret, onboarding_token: r.token, expires_at: r.expires_at };
  }
  return {
    ...base,
    bank_name: r.account.bank_name,
    bank_account_number: r.account.account_number_masked,
    bank_account_name: r.account.account_name,
    institution_id: r.account.institution_id,
    account_number_type: r.account.account_number_type,
  };
}

const MAX_ACCOUNT_NAME = 200;
const MAX_ATTEMPTS = 3;
export const NON_AFRICAN_CALLBACK = 'callback_url is required for non-African countries';
export const AT_LEAST_ONE_FIELD = 'At least one field must be provided';

const present = (v: unknown) => !isAbsent(v);

export class PayoutService {
  private readonly metrics: KycMetrics;
  private readonly now: () => Date;

  constructor(
    private readonly deps: PayoutServiceDeps,
    private readonly options: { linkTtlMs: number },
  ) {
    this.metrics = deps.metrics ?? NO_METRICS;
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * GET /marketplace/payout/banks: from memory; an unknown currency is a 400. Like every marketplace
   * endpoint (spec 4.9) it is for operators (403 otherwise); that answer is cached briefly.
   */
  async listBanks(operatorId: number, currency?: string, deadline?: Date): Promise<readonly PayoutBank[]> {
    const banks = this.deps.banks.list(currency);
    if (!(await this.deps.directory.isOperator(operatorId, deadline)))
      throw new PlatformError('MARKETPLACE_OPERATOR_REQUIRED');
    return banks;
  }

  /**
   * POST …/payout (first-time setup). African merchants: an empty body pays out to the bank account of
   * the KYC submission; otherwise settlement_bank (or institution_id), account_number and account_name
   * name a new one. Other countries: callback_url, and the connected account's onboarding link back.
   */
  async setup(caller: OperatorCaller, merchantId: number, body: PayoutInput): Promise<PayoutResult> {
    const merchant = await this.merchant(caller, merchantId);
    const african = isInHouseCountry(merchant.country);
    const callbackUrl = african ? null : this.callbackUrl(body);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const c = await this.deps.cases.findByMerchant(merchantId, caller.mode);
      if (!c) throw new PlatformError('KYC_NOT_SUBMITTED');
      if (c.payout?.account) throw new PlatformError('PAYOUT_ALREADY_SET_UP');
      const now = this.now();
      if (african) {
        const anyField = [body.settlement_bank, body.institution_id, body.account_number, body.account_name].some(
          present,
        );
        const account = anyField ? this.newBankAccount(body, c, now) : this.kycBankAccount(c, now);
        const next = this.withAccount(c, account, now, 'payout_account_created', caller);
        if (await this.deps.cases.save(c.version, next, [payoutAccountUpdated(next, 'created')])) {
          this.metrics.payoutAccount('created', caller.mode);
          return { kind: 'bank_account', kyc: next, account, merchant };
        }
      } else {
        const connected = this.connectedAccount(c, now);
        const withAccount = this.withAccount(c, connected, now, 'payout_account_created', caller);
        const result = this.withLink(withAccount, callbackUrl!, now);
        if (await this.deps.cases.save(c.version, result.kyc, [payoutAccountUpdated(result.kyc, 'created')])) {
          this.metrics.payoutAccount('created', caller.mode);
          return { ...result, merchant };
        }
      }
    }
    throw new PlatformError('CONFLICT');
  }

  /**
   * PATCH …/payout. African merchants: at least one of settlement_bank (or institution_id),
   * account_number, account_name; the others are kept (a new bank needs its account_number). Other
   * countries: callback_url, and a fresh onboarding link to change the details at the gateway.
   */
  async update(caller: OperatorCaller, merchantId: number, body: PayoutInput): Promise<PayoutResult> {
    const merchant = await this.merchant(caller, merchantId);
    const african = isInHouseCountry(merchant.country);
    let callbackUrl: string | null = null;
    if (african) {
      const fields = [body.settlement_bank, body.institution_id, body.account_number, body.account_name];
      if (!fields.some(present)) throw new PlatformError('VALIDATION_FAILED', AT_LEAST_ONE_FIELD);
    } else {
      callbackUrl = this.callbackUrl(body);
    }
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const c = await this.deps.cases.findByMerchant(merchantId, caller.mode);
      if (!c?.payout) throw new PlatformError('PAYOUT_NOT_SET_UP');
      const current = c.payout.account;
      const now = this.now();
      if (african) {
        if (current?.kind !== 'bank_account') throw new PlatformError('PAYOUT_ACCOUNT_NOT_FOUND');
        const account = this.changedBankAccount(body, current, c, now);
        const next = this.withAccount(c, account, now, 'payout_account_updated', caller);
        if (await this.deps.cases.save(c.version, next, [payoutAccountUpdated(next, 'updated')])) {
          this.metrics.payoutAccount('updated', caller.mode);
          return { kind: 'bank_account', kyc: next, account, merchant };
        }
      } else {
        if (current?.kind !== 'connected_account') throw new PlatformError('PAYOUT_ACCOUNT_NOT_FOUND');
        const result = this.withLink({ ...c, version: c.version + 1, updated_at: now }, callbackUrl!, now);
        if (await this.deps.cases.save(c.version, result.kyc, [])) return { ...result, merchant };
      }
    }
    throw new PlatformError('CONFLICT');
  }

  /** Internal GetPayoutAccount: the account of one mode, masked; why there is none otherwise. */
  async account(merchantId: number, mode: Mode): Promise<{ kyc: KycCaseRecord; account: PayoutAccountRecord }> {
    const c = await this.deps.cases.findByMerchant(merchantId, mode);
    if (!c) throw new PlatformError('KYC_NOT_SUBMITTED');
    if (!c.payout) throw new PlatformError('PAYOUT_NOT_SET_UP');
    if (!c.payout.account) throw new PlatformError('PAYOUT_ACCOUNT_NOT_FOUND');
    return { kyc: c, account: c.payout.account };
  }

  private async merchant(caller: OperatorCaller, merchantId: number): Promise<MerchantFacts> {
    const sub = await this.deps.directory.activeSubMerchant(
      caller.operatorId,
      merchantId,
      caller.mode,
      caller.deadline,
    );
    if (!sub.merchant) throw new PlatformError('MERCHANT_PORTFOLIO_NOT_FOUND');
    return sub.merchant;
  }

  private callbackUrl(body: PayoutInput): string {
    if (isAbsent(body.callback_url)) {
      throw new PlatformError('VALIDATION_FAILED', NON_AFRICAN_CALLBACK, { param: 'callback_url' });
    }
    return readUrl(body.callback_url, 'callback_url', { required: true, allowLocalHttp: true })!;
  }

  /** The institution a request names, which must pay out in the currency the KYC submission locked. */
  private lockedInstitution(body: PayoutInput, c: KycCaseRecord): PayoutInstitution {
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

  private bankAccount(
    institution: PayoutInstitution,
    sealedNumber: Pick<PayoutAccountRecord, 'account_number_sealed' | 'account_number_masked'>,
    accountName: string,
    c: KycCaseRecord,
    createdAt: Date,
    now: Date,
  ): PayoutAccountRecord {
    return {
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
  }

  private sealed(institution: PayoutInstitution, raw: unknown) {
    const number = validateAccountNumber(institution, raw, 'account_number');
    if (!number.ok) throw number.error;
    return {
      account_number_sealed: this.deps.sealer.seal(number.value),
      account_number_masked: maskNumber(number.value),
    };
  }

  private newBankAccount(body: PayoutInput, c: KycCaseRecord, now: Date): PayoutAccountRecord {
    if (!present(body.settlement_bank) && !present(body.institution_id)) {
      throw new PlatformError('VALIDATION_FAILED', 'settlement_bank is required', { param: 'settlement_bank' });
    }
    const institution = this.lockedInstitution(body, c);
    const number = this.sealed(institution, present(body.account_number) ? body.account_number : undefined);
    const name = readString(body.account_name, 'account_name', MAX_ACCOUNT_NAME, true);
    return this.bankAccount(institution, number, name, c, now, now);
  }

  /** An empty first-time setup adopts the bank account of the KYC submission (already validated). */
  private kycBankAccount(c: KycCaseRecord, now: Date): PayoutAccountRecord {
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
    };
    return this.bankAccount(institution, number, kyc.account_name, c, now, now);
  }

  private changedBankAccount(
    body: PayoutInput,
    current: PayoutAccountRecord,
    c: KycCaseRecord,
    now: Date,
  ): PayoutAccountRecord {
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
    const number = present(body.account_number)
      ? this.sealed(institution, body.account_number)
      : { account_number_sealed: current.account_number_sealed, account_number_masked: current.account_number_masked };
    const name = present(body.account_name)
      ? readString(body.account_name, 'account_name', MAX_ACCOUNT_NAME, true)
      : (current.account_name ?? '');
    return this.bankAccount(institution, number, name, c, current.created_at, now);
  }

  private connectedAccount(c: KycCaseRecord, now: Date): PayoutAccountRecord {
    if (c.route !== 'connected_account' || !c.connected) {
      throw new PlatformError(
        'VALIDATION_FAILED',
        `callback_url cannot be used: this merchant's KYC went through in-house review, so its payouts settle in ` +
          `${c.settlement_currency} to a bank account (settlement_bank, account_number, account_name)`,
        { param: 'callback_url' },
      );
    }
    return {
      kind: 'connected_account',
      currency: c.settlement_currency,
      country: c.connected.country,
      payment_gateway: 'card_gateway',
      payout_method: 'connected_account',
      institution_id: null,
      bank_name: null,
      account_number_type: null,
      account_number_sealed: null,
      account_number_masked: null,
      account_name: null,
      gateway_account_id: c.connected.gateway_account_id,
      name_match_score: null,
      created_at: now,
      updated_at: now,
    };
  }

  private withAccount(
    c: KycCaseRecord,
    account: PayoutAccountRecord,
    now: Date,
    action: HistoryEntry['action'],
    caller: OperatorCaller,
  ): KycCaseRecord {
    return {
      ...c,
      payout: { set_up_at: c.payout?.set_up_at ?? now, updated_at: now, account },
      history: [
        ...c.history,
        {
          action,
          from_status: c.status,
          to_status: c.status,
          actor: 'operator',
          actor_id: `operator:${caller.operatorId}`,
          reason: null,
          at: now,
        },
      ],
      version: c.version + 1,
      updated_at: now,
    };
  }

  /**
   * A new hosted link on the connected account, returning to callback_url either way. While the
   * submission still waits for onboarding the link completes it; afterwards it only updates details.
   */
  private withLink(c: KycCaseRecord, callbackUrl: string, now: Date) {
    const issued = issueLink({
      purpose: c.status === 'pending_onboarding' ? 'onboarding' : 'update',
      gatewayAccountId: c.connected!.gateway_account_id,
      returnUrl: callbackUrl,
      refreshUrl: callbackUrl,
      now,
      ttlMs: this.options.linkTtlMs,
    });
    return {
      kind: 'connected_account' as const,
      kyc: { ...c, ...withNewLink(c, issued.link) },
      token: issued.token,
      client_secret: issued.client_secret,
      expires_at: issued.link.expires_at,
    };
  }
}
