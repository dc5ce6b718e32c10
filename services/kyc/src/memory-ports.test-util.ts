import {
  PlatformError,
  type EncryptedSecret,
  type KycStatus,
  type KycSubmissionUpdated,
  type Mode,
  type OutboxEntry,
} from '@ppay/kernel';
import { serviceDefinitions } from '@ppay/proto';
import { BankDirectory } from './payout-accounts/banks';
import type { KycCaseRecord } from './cases/kyc-case';
import { KycReviewService } from './cases/kyc-reviews';
import { GatewayAccountService } from './gateway-accounts/gateway-accounts';
import { HostedOnboardingService } from './onboarding/hosted-onboarding';
import { KycSubmissionService, submissionRoutes } from './submissions/kyc-submissions';
import type { NameEnquiryProviders } from './submissions/ports';
import { SandboxNameEnquiry } from './submissions/sandbox-name-enquiry.adapter';
import { PayoutAccountService } from './payout-accounts/payout-accounts';
import type {
  AccountLinkPurpose,
  ConnectedAccountProvider,
  GatewayAccountRef,
  KycCaseRepository,
  OperatorCaller,
  Opener,
  Sealer,
  SubMerchant,
  SubMerchantDirectory,
} from './ports';

/** In-memory implementations of kyc's ports, for use-case tests in milliseconds. */

const clone = <T>(v: T): T => structuredClone(v);

export class MemoryCases implements KycCaseRepository {
  readonly docs = new Map<number, KycCaseRecord>();
  readonly events: OutboxEntry[] = [];
  private seq = 0;
  /** Set to make the next save lose a race (another writer got there first). */
  loseNextSave = false;

  async nextId() {
    return ++this.seq;
  }
  async insert(record: KycCaseRecord, events: OutboxEntry[]) {
    if ([...this.docs.values()].some((c) => c.merchant_id === record.merchant_id && c.mode === record.mode)) {
      return false;
    }
    this.docs.set(record.id, clone(record));
    this.events.push(...events);
    return true;
  }
  async findByMerchant(merchantId: number, mode: Mode) {
    const found = [...this.docs.values()].find((c) => c.merchant_id === merchantId && c.mode === mode);
    return found ? clone(found) : null;
  }
  async findById(id: number) {
    const found = this.docs.get(id);
    return found ? clone(found) : null;
  }
  async findByLinkToken(hash: string) {
    const found = [...this.docs.values()].find(
      (c) => c.link?.token_hash === hash || c.superseded_links.some((l) => l.token_hash === hash),
    );
    return found ? clone(found) : null;
  }
  async findByGatewayAccount(id: string, mode: Mode) {
    const found = [...this.docs.values()].find((c) => c.connected?.gateway_account_id === id && c.mode === mode);
    return found ? clone(found) : null;
  }
  async save(expectedVersion: number, next: KycCaseRecord, events: OutboxEntry[]) {
    const current = this.docs.get(next.id);
    if (this.loseNextSave && current) {
      this.loseNextSave = false;
      current.version += 1; // somebody else's write
      return false;
    }
    if (!current || current.version !== expectedVersion) return false;
    this.docs.set(next.id, clone(next));
    this.events.push(...events);
    return true;
  }
  async list(mode: Mode, status: KycStatus, page: number, limit: number) {
    return this.page((c) => c.mode === mode && c.status === status, page, limit);
  }
  async listPayoutChanges(mode: Mode, page: number, limit: number) {
    return this.page((c) => c.mode === mode && !!c.payout?.pending_change, page, limit);
  }
  private page(match: (c: KycCaseRecord) => boolean, page: number, limit: number) {
    const all = [...this.docs.values()]
      .filter(match)
      .sort((a, b) => a.submitted_at.getTime() - b.submitted_at.getTime() || a.id - b.id);
    return { items: all.slice((page - 1) * limit, page * limit).map(clone), total: all.length };
  }
  async scanAfter(afterId: number, limit: number) {
    return [...this.docs.values()]
      .filter((c) => c.id > afterId)
      .sort((a, b) => a.id - b.id)
      .slice(0, limit)
      .map(clone);
  }
  async queueStats(mode: Mode) {
    const waiting = [...this.docs.values()].filter((c) => c.mode === mode && c.status === 'pending_review');
    const oldest = waiting.map((c) => c.submitted_at).sort((a, b) => a.getTime() - b.getTime())[0] ?? null;
    return { count: waiting.length, oldest };
  }
}

/** Operators and their sub-merchants, with the same errors as marketplace's DescribeSubMerchant. */
export class MemoryDirectory implements SubMerchantDirectory {
  readonly operators = new Set<number>();
  readonly subs = new Map<
    number,
    { operator: number; active: boolean; merchant: NonNullable<SubMerchant['merchant']> | null }
  >();
  calls = 0;
  /** The deadline each call to marketplace was given (the caller's, passed on). */
  readonly deadlines: (Date | undefined)[] = [];

  addOperator(id: number) {
    this.operators.add(id);
  }
  addSub(operator: number, id: number, country = 'NG', currency = 'NGN', active = true) {
    this.subs.set(id, {
      operator,
      active,
      merchant: { id, country, baseline_currency: currency, business_name: `Business ${id}` },
    });
  }
  async isOperator(merchantId: number, deadline?: Date) {
    this.deadlines.push(deadline);
    return this.operators.has(merchantId);
  }
  async activeSubMerchant(operatorId: number, merchantId: number, _mode: Mode, deadline?: Date): Promise<SubMerchant> {
    this.calls++;
    this.deadlines.push(deadline);
    if (!this.operators.has(operatorId)) throw new PlatformError('MARKETPLACE_OPERATOR_REQUIRED');
    const sub = this.subs.get(merchantId);
    if (!sub || sub.operator !== operatorId || !sub.active) throw new PlatformError('RELATIONSHIP_NOT_FOUND');
    return { marketplace_id: operatorId, merchant: sub.merchant ? { ...sub.merchant } : null };
  }
}

/** Reversible and obviously not clear text: enough to prove what is sealed and that it is not stored in clear. */
export class FakeSealer implements Sealer, Opener {
  readonly sealed: string[] = [];
  seal(plaintext: string): EncryptedSecret {
    this.sealed.push(plaintext);
    return { key_id: 'test', iv: 'iv', tag: 'tag', data: Buffer.from(plaintext).toString('base64') };
  }
  open(sealed: EncryptedSecret): string {
    if (sealed.key_id !== 'test') throw new Error(`unknown key ${sealed.key_id}`);
    return Buffer.from(sealed.data, 'base64').toString();
  }
}

/**
 * A connected-account gateway in memory. `hostedBy: 'gateway'` plays a live one, whose own onboarding
 * our onboarding_url redirects to (a fresh link each time); 'page' plays the sandbox, our page.
 */
export class FakeConnectedAccounts implements ConnectedAccountProvider {
  created = 0;
  closed: string[] = [];
  /** Every gateway link handed out: account, purpose and the URLs it returns and refreshes to. */
  links: { account: string; purpose: AccountLinkPurpose; returnUrl: string; refreshUrl: string }[] = [];
  secrets = 0;
  /** Balances by account id; absent = zero. */
  balances = new Map<string, { available: number; pending: number }>();
  constructor(
    private readonly hostedBy: 'page' | 'gateway' = 'page',
    private readonly prefix = 'acct_test',
  ) {}
  async createAccount() {
    this.created++;
    return { gateway_account_id: `${this.prefix}${this.created}` };
  }
  publishableKey(account: GatewayAccountRef) {
    return `pk_${this.prefix}_${account.gateway_region}`;
  }
  async clientSecret(account: GatewayAccountRef) {
    this.secrets++;
    return `${account.gateway_account_id}_secret_${this.secrets}`;
  }
  async gatewayLink(
    account: GatewayAccountRef,
    purpose: AccountLinkPurpose,
    urls: { returnUrl: string; refreshUrl: string },
  ) {
    if (this.hostedBy === 'page') return null;
    this.links.push({ account: account.gateway_account_id, purpose, ...urls });
    return `https://connect.gateway.test/setup/${purpose}/${account.gateway_account_id}/${this.links.length}`;
  }
  async balance(account: { gateway_account_id: string }, currency: string) {
    const b = this.balances.get(account.gateway_account_id) ?? { available: 0, pending: 0 };
    return { available: { amount: b.available, currency }, pending: { amount: b.pending, currency } };
  }
  async closeAccount(account: { gateway_account_id: string }) {
    this.closed.push(account.gateway_account_id);
  }
}

/** A settable clock. */
export class Clock {
  constructor(public time = new Date('2026-11-23T10:00:00Z')) {}
  now = () => new Date(this.time);
  advance(ms: number) {
    this.time = new Date(this.time.getTime() + ms);
  }
}

/** A request body as the kyc service receives it: encoded and decoded by its gRPC contract. */
export function asDecoded(method: 'SubmitKyc' | 'SetupPayout' | 'UpdatePayout', body: Record<string, unknown>) {
  type Codec = { requestSerialize(value: unknown): Buffer; requestDeserialize(bytes: Buffer): unknown };
  const def = (serviceDefinitions().kyc as unknown as Record<string, Codec>)[method]!;
  const decoded = def.requestDeserialize(def.requestSerialize({ merchant_id: 1, ...body })) as Record<string, unknown>;
  const { merchant_id: _merchantId, ...rest } = decoded;
  return rest;
}

export const LINK_TTL_MS = 10 * 60_000;

/** The use cases over in-memory ports; `sealer` is a FakeSealer unless a test brings a real key ring. */
export function kycWorld<S extends Sealer & Opener = FakeSealer>(sealer: S = new FakeSealer() as unknown as S) {
  const cases = new MemoryCases();
  const directory = new MemoryDirectory();
  const gateway = new FakeConnectedAccounts();
  const liveGateway = new FakeConnectedAccounts('gateway', 'acct_live');
  const clock = new Clock();
  const banks = BankDirectory.bundled();
  const providers = { sandbox: gateway, live: liveGateway };
  const nameEnquiry: NameEnquiryProviders = { sandbox: new SandboxNameEnquiry() };
  const deps = { cases, directory, sealer, banks, now: clock.now };
  const routes = submissionRoutes({ ...deps, providers, nameEnquiry }, { linkTtlMs: LINK_TTL_MS });
  const submissions = new KycSubmissionService({ ...deps, routes });
  const reviews = new KycReviewService(deps);
  const onboarding = new HostedOnboardingService({ ...deps, providers });
  const payoutAccounts = new PayoutAccountService({ ...deps, nameEnquiry, providers }, { linkTtlMs: LINK_TTL_MS });
  const gatewayAccounts = new GatewayAccountService({ cases, providers, now: clock.now });
  return {
    cases,
    directory,
    sealer,
    gateway,
    liveGateway,
    providers,
    clock,
    banks,
    submissions,
    reviews,
    onboarding,
    payoutAccounts,
    gatewayAccounts,
    nameEnquiry,
  };
}

export const OPERATOR = 10;
/** A Nigerian sub-merchant of OPERATOR's (in-house route). */
export const SUB = 1001;
export const sandbox: OperatorCaller = { operatorId: OPERATOR, mode: 'sandbox' };
export const live: OperatorCaller = { operatorId: OPERATOR, mode: 'live' };

/** kycWorld with OPERATOR and its active sub-merchant SUB. */
export function operatorWorld<S extends Sealer & Opener = FakeSealer>(sealer?: S) {
  const w = kycWorld<S>(sealer);
  w.directory.addOperator(OPERATOR);
  w.directory.addSub(OPERATOR, SUB);
  return w;
}

/** The kyc.submission.updated events written so far. */
export function submissionEvents(w: ReturnType<typeof kycWorld>) {
  return w.cases.events
    .filter((e) => e.subject === 'kyc.submission.updated')
    .map((e) => e.data as KycSubmissionUpdated);
}
