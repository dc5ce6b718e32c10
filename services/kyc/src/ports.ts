import type { EncryptedSecret, KycStatus, Mode, OutboxEntry } from '@ppay/kernel';
import type { ConnectedAccount, ConnectedAccountBalance, KycCaseRecord } from './cases/kyc-case';

/**
 * What several kyc subdomains depend on, as interfaces (the adapters are the `*.repo.ts` and
 * `*.adapter.ts` files), and the operator's call they are asked on behalf of.
 */

/** An operator's partner call: its business id and the mode of its API key. */
export interface OperatorCaller {
  operatorId: number;
  mode: Mode;
  /** The caller's deadline: calls to other services get at most what is left of it. */
  deadline?: Date;
}

export interface KycCaseRepository {
  nextId(): Promise<number>;
  /** Inserts a new case with its events; false when (merchant, mode) already has one (unique index). */
  insert(record: KycCaseRecord, events: OutboxEntry[]): Promise<boolean>;
  findByMerchant(merchantId: number, mode: Mode): Promise<KycCaseRecord | null>;
  findById(id: number): Promise<KycCaseRecord | null>;
  findByLinkToken(tokenHash: string): Promise<KycCaseRecord | null>;
  /** The case of one mode whose connected account at the gateway is `gatewayAccountId` (gateway events). */
  findByGatewayAccount(gatewayAccountId: string, mode: Mode): Promise<KycCaseRecord | null>;
  /**
   * Replaces the case with `next` (whose version is `expectedVersion + 1`) and appends `events` to its
   * outbox in one write, only while the stored version is still `expectedVersion`; false otherwise.
   */
  save(expectedVersion: number, next: KycCaseRecord, events: OutboxEntry[]): Promise<boolean>;
  /** Cases of one mode and status, oldest submission first (the review queue). */
  list(mode: Mode, status: KycStatus, page: number, limit: number): Promise<{ items: KycCaseRecord[]; total: number }>;
  /** Cases of one mode whose payout account change waits for review, oldest submission first. */
  listPayoutChanges(mode: Mode, page: number, limit: number): Promise<{ items: KycCaseRecord[]; total: number }>;
  /** Cases with an id above `afterId`, by id (the re-encryption job's walk). */
  scanAfter(afterId: number, limit: number): Promise<KycCaseRecord[]>;
  /** Size and oldest submission of the review queue of one mode (metrics). */
  queueStats(mode: Mode): Promise<{ count: number; oldest: Date | null }>;
}

/** A sub-merchant as kyc needs it before any KYC or payout call. */
export interface SubMerchant {
  marketplace_id: number;
  /** Null when the business record is gone (spec 7.4 "Merchant portfolio not found"). */
  merchant: { id: number; country: string; baseline_currency: string; business_name: string } | null;
}

/**
 * marketplace's view of operator ↔ sub-merchant (the source of truth, asked on every call):
 * MARKETPLACE_OPERATOR_REQUIRED for a caller that is not an operator; RELATIONSHIP_NOT_FOUND for no
 * relationship, another operator's merchant, or one that is not active.
 */
export interface SubMerchantDirectory {
  /**
   * The relationship in `mode` (marketplace data is separated by mode). `deadline`: the caller's; the
   * call to marketplace gets at most what is left of it.
   */
  activeSubMerchant(operatorId: number, merchantId: number, mode: Mode, deadline?: Date): Promise<SubMerchant>;
  /** Whether the merchant is a marketplace operator (may be served from a short-lived cache). */
  isOperator(merchantId: number, deadline?: Date): Promise<boolean>;
}

/** What a connected-account link is for: first onboarding, or an update of payout details later. */
export type AccountLinkPurpose = 'onboarding' | 'update';

/** Which account at the gateway, and under which regional platform account it lives. */
export type GatewayAccountRef = Pick<ConnectedAccount, 'gateway_account_id' | 'gateway_region'>;

/**
 * Connected accounts at the card gateway of one mode (connected-account KYC route, spec 4.9). Every
 * method is safe to repeat: creating an account for the same merchant again answers the same account.
 */
export interface ConnectedAccountProvider {
  createAccount(input: {
    merchantId: number;
    country: string;
    businessType: string;
    settlementCurrency: string;
    region: 'EU' | 'US';
  }): Promise<{ gateway_account_id: string }>;
  /** The platform's publishable key the account's client secret is used with (embedded components). */
  publishableKey(account: GatewayAccountRef): string;
  /** A fresh client secret for the gateway's embedded onboarding (or payout details update) of the account. */
  clientSecret(account: GatewayAccountRef, purpose: AccountLinkPurpose): Promise<string>;
  /**
   * A fresh link to the gateway's own onboarding (or update) of the account, where our onboarding_url
   * sends the merchant; null when our hosted page plays the gateway's onboarding (sandbox).
   */
  gatewayLink(
    account: GatewayAccountRef,
    purpose: AccountLinkPurpose,
    urls: { returnUrl: string; refreshUrl: string },
  ): Promise<string | null>;
  /** The account's available and pending balance (delete merchant, spec 4.9). */
  balance(account: ConnectedAccount, settlementCurrency: string): Promise<ConnectedAccountBalance>;
  /** Closes the account at the gateway; closing an already closed account is not an error. */
  closeAccount(account: ConnectedAccount): Promise<void>;
}

/** Per mode; a mode without a provider answers GATEWAY_NOT_CONFIGURED (sandbox never reaches live). */
export type ConnectedAccountProviders = Partial<Record<Mode, ConnectedAccountProvider>>;

/** Encryption at rest for account and ID numbers and personal data (the kernel SecretBox). */
export interface Sealer {
  seal(plaintext: string): EncryptedSecret;
}

/** Opens what any key of the ring sealed; throws for a key it does not hold (the admin review reads). */
export interface Opener {
  open(sealed: EncryptedSecret): string;
}

/** The whole key ring, as the re-encryption job uses it. */
export interface KeyRing extends Sealer, Opener {
  isCurrent(sealed: EncryptedSecret): boolean;
  canOpen(sealed: EncryptedSecret): boolean;
  reseal(sealed: EncryptedSecret): EncryptedSecret;
}

/** What the use cases count (prom-client in main.ts; nothing in unit tests). */
export interface KycMetrics {
  submitted(route: string, outcome: string, mode: Mode): void;
  decided(action: string, actor: string, mode: Mode): void;
  payoutAccount(change: string, mode: Mode): void;
  /** A bank-account name enquiry's outcome (found, not_found, unavailable, unconfigured). */
  nameEnquiry(outcome: string, mode: Mode): void;
}

export const NO_METRICS: KycMetrics = { submitted() {}, decided() {}, payoutAccount() {}, nameEnquiry() {} };

/** What a use case may be given and otherwise does without: its metrics, and a clock (tests set one). */
export interface UseCaseExtras {
  metrics?: KycMetrics;
  now?: () => Date;
}

/** What every use case serving operators' calls needs: the cases, and marketplace to authorise the caller. */
export interface OperatorUseCaseDeps extends UseCaseExtras {
  cases: KycCaseRepository;
  directory: SubMerchantDirectory;
}

/** `deps` with no metrics and the system clock where none were given. */
export function withDefaults<D extends UseCaseExtras>(deps: D): D & Required<UseCaseExtras> {
  return { ...deps, metrics: deps.metrics ?? NO_METRICS, now: deps.now ?? (() => new Date()) };
}
