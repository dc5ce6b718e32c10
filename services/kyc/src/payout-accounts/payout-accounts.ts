import { PlatformError, type Mode } from '@ppay/kernel';
import { payoutAccountUpdated, type KycCaseRecord, type PayoutAccountRecord } from '../cases/kyc-case';
import { retryLostWrites } from '../cases/lost-writes';
import { issueLink, withNewLink } from '../onboarding/onboarding-links';
import {
  withDefaults,
  type ConnectedAccountProviders,
  type OperatorCaller,
  type OperatorUseCaseDeps,
  type Sealer,
} from '../ports';
import { isAbsent, readUrl } from '../submissions/fields';
import { isInHouseCountry } from '../submissions/routing';
import { askNameEnquiry } from '../submissions/name-enquiry';
import type { NameEnquiryProviders } from '../submissions/ports';
import {
  BankPayoutAccounts,
  namesBankAccount,
  type BankAccountFields,
  type NamedBankAccount,
} from './bank-payout-accounts';
import type { BankDirectory, PayoutBank } from './banks';
import { holderReviewReasons } from './holder-check';
import {
  connectedPayoutAccount,
  fingerprintSaltOf,
  operatorActor,
  withPayoutAccount,
  withPendingChange,
  type MerchantFacts,
  type PayoutAccountResult,
} from './payout-account';

/**
 * Payout set-up and update (spec 4.9, 7.4) and the payout account other services read.
 *
 * The branch is the sub-merchant's country (spec 4.9: "African countries (NG, GH, ZA, KE)" send bank
 * fields, "other countries" send callback_url and redo onboarding). The account must settle in the
 * currency the KYC submission locked (spec 2.7 settlement_currency), so a bank of another country is
 * refused. Checks run in the order of the 7.4 table after the operator (403), the active relationship
 * (404) and the merchant's business record (404 "Merchant portfolio not found").
 */

export interface PayoutAccountInput extends BankAccountFields {
  callback_url?: string;
}

export interface PayoutAccountServiceDeps extends OperatorUseCaseDeps {
  sealer: Sealer;
  banks: BankDirectory;
  /** The bank-account name enquiry of each mode, which confirms a new account number (none for live yet). */
  nameEnquiry: NameEnquiryProviders;
  /** The connected-account gateway of each mode: a payout details update is a new link to it. */
  providers: ConnectedAccountProviders;
}

export const NON_AFRICAN_CALLBACK = 'callback_url is required for non-African countries';
export const AT_LEAST_ONE_FIELD = 'At least one field must be provided';

export class PayoutAccountService {
  private readonly bankAccounts: BankPayoutAccounts;

  private readonly deps: Required<PayoutAccountServiceDeps>;

  constructor(
    deps: PayoutAccountServiceDeps,
    private readonly options: { linkTtlMs: number },
  ) {
    this.deps = withDefaults(deps);
    this.bankAccounts = new BankPayoutAccounts(deps);
  }

  /**
   * GET /marketplace/payout/banks: from memory; an unknown currency is a 400. Like every marketplace
   * endpoint (spec 4.9) it is for operators (403 otherwise); that answer is cached briefly.
   */
  async listBanks(operatorId: number, currency?: string, deadline?: Date): Promise<readonly PayoutBank[]> {
    if (!(await this.deps.directory.isOperator(operatorId, deadline)))
      throw new PlatformError('MARKETPLACE_OPERATOR_REQUIRED');
    return this.deps.banks.list(currency);
  }

  /**
   * POST …/payout (first-time setup). African merchants: an empty body pays out to the bank account of
   * the KYC submission; otherwise settlement_bank (or institution_id), account_number and account_name
   * name a new one. Other countries: callback_url, and the connected account's onboarding link back.
   */
  async setup(caller: OperatorCaller, merchantId: number, body: PayoutAccountInput): Promise<PayoutAccountResult> {
    const merchant = await this.merchant(caller, merchantId);
    const african = isInHouseCountry(merchant.country);
    const callbackUrl = african ? null : this.callbackUrl(body);
    return retryLostWrites(async () => {
      const c = await this.deps.cases.findByMerchant(merchantId, caller.mode);
      if (!c) throw new PlatformError('KYC_NOT_SUBMITTED');
      if (c.payout?.account) throw new PlatformError('PAYOUT_ALREADY_SET_UP');
      const now = this.deps.now();
      const salt = fingerprintSaltOf(c);
      if (african) {
        // The KYC submission's own account was reviewed with it; one the operator names is checked here.
        if (!namesBankAccount(body)) {
          const adopted = this.bankAccounts.fromKycSubmission(c, salt, now);
          return this.saveBankAccount(caller, c, adopted, 'created', merchant, { salt, now, reasons: [] });
        }
        const named = this.bankAccounts.fromRequest(body, c, salt, now);
        const { account, reasons } = await this.checked(caller, named);
        return this.saveBankAccount(caller, c, account, 'created', merchant, { salt, now, reasons });
      }
      const withAccount = withPayoutAccount(
        c,
        connectedPayoutAccount(c, salt, now),
        now,
        'payout_account_created',
        operatorActor(caller),
        salt,
      );
      const result = await this.withLink(withAccount, callbackUrl!, now);
      if (!(await this.deps.cases.save(c.version, result.kyc, [payoutAccountUpdated(result.kyc, 'created')]))) {
        return undefined;
      }
      this.deps.metrics.payoutAccount('created', caller.mode);
      return { ...result, merchant };
    });
  }

  /**
   * PATCH …/payout. African merchants: at least one of settlement_bank (or institution_id),
   * account_number, account_name; the others are kept (a new bank needs its account_number). Other
   * countries: callback_url, and a fresh onboarding link to change the details at the gateway. A bank
   * account changes only while the KYC case is approved (409 otherwise). It goes live at once only when
   * its holder name matches the KYC legal name and, for a new number or bank, the bank's name enquiry
   * confirms that holder; otherwise it waits for a reviewer while payouts keep going to the current
   * account (holder-check.ts). A PATCH that changes nothing writes nothing and announces nothing.
   */
  async update(caller: OperatorCaller, merchantId: number, body: PayoutAccountInput): Promise<PayoutAccountResult> {
    const merchant = await this.merchant(caller, merchantId);
    const african = isInHouseCountry(merchant.country);
    let callbackUrl: string | null = null;
    if (african) {
      if (!namesBankAccount(body)) throw new PlatformError('VALIDATION_FAILED', AT_LEAST_ONE_FIELD);
    } else {
      callbackUrl = this.callbackUrl(body);
    }
    return retryLostWrites(async () => {
      const c = await this.deps.cases.findByMerchant(merchantId, caller.mode);
      if (!c?.payout) throw new PlatformError('PAYOUT_NOT_SET_UP');
      const current = c.payout.account;
      const now = this.deps.now();
      if (current?.kind !== (african ? 'bank_account' : 'connected_account')) {
        throw new PlatformError('PAYOUT_ACCOUNT_NOT_FOUND');
      }
      if (african) {
        const salt = fingerprintSaltOf(c);
        const named = this.bankAccounts.changed(body, current, c, salt, now);
        // The spec 7.4 answers and the fields' own 400s first; then no bank account change while the KYC
        // case is not approved (a connected account's PATCH only hands the merchant a link: the gateway
        // holds its details).
        if (c.status !== 'approved') {
          throw new PlatformError('PAYOUT_CHANGE_NEEDS_APPROVED_KYC', undefined, {
            detail: `The KYC submission is ${c.status}`,
          });
        }
        const unchanged = this.unchanged(c, named.account, merchant);
        if (unchanged) return unchanged;
        const newNumber =
          named.number !== null &&
          (named.account.institution_id !== current.institution_id ||
            named.account.account_number_digest !== current.account_number_digest);
        // Same number: nothing new for the bank to confirm, and its earlier answer still describes it.
        const toCheck = newNumber
          ? named
          : { ...named, number: null, account: { ...named.account, name_enquiry: current.name_enquiry ?? null } };
        const { account, reasons } = await this.checked(caller, toCheck);
        return this.saveBankAccount(caller, c, account, 'updated', merchant, { salt, now, reasons });
      }
      const result = await this.withLink({ ...c, version: c.version + 1, updated_at: now }, callbackUrl!, now);
      if (!(await this.deps.cases.save(c.version, result.kyc, []))) return undefined;
      return { ...result, merchant };
    });
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

  private callbackUrl(body: PayoutAccountInput): string {
    if (isAbsent(body.callback_url)) {
      throw new PlatformError('VALIDATION_FAILED', NON_AFRICAN_CALLBACK, { param: 'callback_url' });
    }
    return readUrl(body.callback_url, 'callback_url', { required: true, allowLocalHttp: true })!;
  }

  /**
   * The answer to a PATCH naming what is already there (the live account with nothing waiting, or the
   * change already waiting for review): nothing to write, no history entry, no event.
   */
  private unchanged(
    c: KycCaseRecord,
    account: PayoutAccountRecord,
    merchant: MerchantFacts,
  ): PayoutAccountResult | undefined {
    const pending = c.payout?.pending_change?.account;
    const live = c.payout?.account;
    const same = (a: PayoutAccountRecord | null | undefined) =>
      !!a && !!a.fingerprint && a.fingerprint === account.fingerprint && a.account_name === account.account_name;
    if (pending ? !same(pending) : !same(live)) return undefined;
    this.deps.metrics.payoutAccount('unchanged', c.mode);
    const shown = pending ?? live!;
    return {
      kind: 'bank_account',
      kyc: c,
      account: shown,
      merchant,
      change_status: pending ? 'pending_review' : 'applied',
    };
  }

  /**
   * The account with the bank's answer about its number (when it names one to confirm: a new number, or
   * any account the operator names at setup) and every reason it needs a reviewer first.
   */
  private async checked(
    caller: OperatorCaller,
    named: NamedBankAccount,
  ): Promise<{ account: PayoutAccountRecord; reasons: string[] }> {
    if (named.number === null) {
      return { account: named.account, reasons: holderReviewReasons(named.account, null) };
    }
    const enquiry = await askNameEnquiry(
      this.deps.nameEnquiry,
      {
        institution: named.institution,
        account_number: named.number,
        declared_name: named.account.account_name ?? '',
        mode: caller.mode,
        deadline: caller.deadline,
      },
      this.deps.metrics,
    );
    const account = { ...named.account, name_enquiry: enquiry };
    return { account, reasons: holderReviewReasons(account, enquiry) };
  }

  /**
   * Writes a created or changed bank account with its event, or, when there are `reasons` for a
   * reviewer, keeps it waiting for one (no event: nothing changed for payouts, which keep going to the
   * current account). Undefined when the write lost a race.
   */
  private async saveBankAccount(
    caller: OperatorCaller,
    c: KycCaseRecord,
    account: PayoutAccountRecord,
    change: 'created' | 'updated',
    merchant: MerchantFacts,
    o: { salt: string; now: Date; reasons: string[] },
  ): Promise<PayoutAccountResult | undefined> {
    if (o.reasons.length) {
      const next = withPendingChange(c, account, o.salt, o.reasons.join(', '), o.now, caller);
      if (!(await this.deps.cases.save(c.version, next, []))) return undefined;
      this.deps.metrics.payoutAccount('pending_review', caller.mode);
      return { kind: 'bank_account', kyc: next, account, merchant, change_status: 'pending_review' };
    }
    const next = withPayoutAccount(c, account, o.now, `payout_account_${change}`, operatorActor(caller), o.salt);
    if (!(await this.deps.cases.save(c.version, next, [payoutAccountUpdated(next, change)]))) return undefined;
    this.deps.metrics.payoutAccount(change, caller.mode);
    return { kind: 'bank_account', kyc: next, account, merchant, change_status: 'applied' };
  }

  /**
   * A new hosted link on the connected account, returning to callback_url either way. While the
   * submission still waits for onboarding the link completes it; afterwards it only updates details.
   */
  private async withLink(c: KycCaseRecord, callbackUrl: string, now: Date) {
    const provider = this.deps.providers[c.mode];
    if (!provider) throw new PlatformError('GATEWAY_NOT_CONFIGURED');
    const purpose = c.status === 'pending_onboarding' ? 'onboarding' : 'update';
    const issued = issueLink({
      purpose,
      clientSecret: await provider.clientSecret(c.connected!, purpose),
      returnUrl: callbackUrl,
      refreshUrl: callbackUrl,
      now,
      ttlMs: this.options.linkTtlMs,
    });
    return {
      kind: 'connected_account' as const,
      kyc: { ...c, ...withNewLink(c, issued.link) },
      token: issued.token,
      publishable_key: provider.publishableKey(c.connected!),
      client_secret: issued.client_secret,
      expires_at: issued.link.expires_at,
    };
  }
}
