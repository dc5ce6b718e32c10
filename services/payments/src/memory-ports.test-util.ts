import { convertMoney, PlatformError, type Mode, type Money, type OutboxEntry } from '@ppay/kernel';
import { isRetryableFailure, type ChargeRecord } from './charges/charge';
import { chargeListKey } from './charges/charge-queries';
import type { FxConverter, FxQuote } from './charges/ports';
import type { CatalogueProduct, ProductLookup } from './checkout/ports';
import type { AttemptChange, ProcessorClose, SessionRecord } from './checkout/session';
import type { PaymentMethodRecord } from './payment-methods/payment-method';
import type { PaymentMethodRepository } from './payment-methods/ports';
import type {
  ChargeKeys,
  ChargeListQuery,
  ChargeRepository,
  DisputeHoldChange,
  LedgerRepository,
  RefundsChange,
  MerchantDirectory,
  MerchantProfile,
  SessionRepository,
  SplitResolver,
  SplitTerms,
} from './ports';
import type { ProcessorAuthorization } from './processors/ports';
import type { LedgerEntry } from './wallets/ledger-entry';
import type { WalletBalanceEntry } from './wallets/wallet';

/** In-memory implementations of payments' ports, for use-case tests in milliseconds. */

const clone = <T>(v: T): T => structuredClone(v);

export class MemoryCharges implements ChargeRepository {
  readonly docs = new Map<string, ChargeRecord & { reference_key: string; idempotency_ref: string }>();
  readonly events: OutboxEntry[] = [];

  async insert(charge: ChargeRecord) {
    const reference_key = charge.reference ?? `id:${charge.charge_id}`;
    const idempotency_ref = charge.idempotency_key ?? `id:${charge.charge_id}`;
    const taken = [...this.docs.values()].some(
      (c) =>
        c.merchant_id === charge.merchant_id &&
        c.mode === charge.mode &&
        (c.reference_key === reference_key || c.idempotency_ref === idempotency_ref),
    );
    if (taken) return false;
    this.docs.set(charge.charge_id, { ...clone(charge), reference_key, idempotency_ref });
    return true;
  }
  async findByKeys(merchantId: number, mode: Mode, keys: ChargeKeys) {
    const mine = [...this.docs.values()].filter((c) => c.merchant_id === merchantId && c.mode === mode);
    const found =
      (keys.idempotencyKey && mine.find((c) => c.idempotency_ref === keys.idempotencyKey)) ||
      (keys.reference && mine.find((c) => c.reference_key === keys.reference));
    return found ? this.record(found) : null;
  }
  async findForMerchant(merchantId: number, mode: Mode, chargeId: string) {
    const c = this.docs.get(chargeId);
    return c && c.merchant_id === merchantId && c.mode === mode ? this.record(c) : null;
  }
  async findLiveByProcessorReference(reference: string) {
    const c = [...this.docs.values()].find((d) => d.mode === 'live' && d.processor_reference === reference);
    return c ? this.record(c) : null;
  }
  async listForMerchant(merchantId: number, mode: Mode, q: ChargeListQuery) {
    const key = (c: ChargeRecord) => chargeListKey(c);
    return [...this.docs.values()]
      .filter((c) => c.merchant_id === merchantId && c.mode === mode)
      .filter((c) => (!q.status || c.status === q.status) && (!q.reference || c.reference_key === q.reference))
      .filter((c) => (!q.from || c.created_at >= q.from) && (!q.to || c.created_at < q.to))
      .filter((c) => !q.after || key(c) < q.after)
      .sort((a, b) => (key(a) < key(b) ? 1 : -1))
      .slice(0, q.limit)
      .map((c) => this.record(c));
  }
  async retryInitialisation(chargeId: string, staleBefore: Date, now: Date) {
    const c = this.docs.get(chargeId);
    if (!c) return null;
    const retryable = isRetryableFailure(c) || (c.status === 'initializing' && c.updated_at <= staleBefore);
    if (!retryable) return null;
    Object.assign(c, { status: 'initializing', failure_reason: null, updated_at: now, attempts: c.attempts + 1 });
    return this.record(c);
  }
  async reclaimPending(chargeId: string, staleBefore: Date, now: Date) {
    const c = this.docs.get(chargeId);
    if (!c || c.status !== 'pending' || c.updated_at > staleBefore) return null;
    Object.assign(c, { updated_at: now, attempts: c.attempts + 1 });
    return this.record(c);
  }
  async releaseReference(chargeId: string, reference: string) {
    const c = this.docs.get(chargeId);
    if (!c || c.status !== 'failed' || c.reference_key !== reference) return false;
    c.reference_key = `released:${chargeId}`;
    return true;
  }
  async markInitialised(chargeId: string, a: ProcessorAuthorization) {
    const c = this.docs.get(chargeId);
    if (!c || c.status !== 'initializing') return null;
    Object.assign(c, {
      status: 'pending',
      processor_reference: a.processor_reference,
      client_secret: a.client_secret ?? null,
      publishable_key: a.publishable_key ?? null,
      gateway_account_id: a.gateway_account_id ?? null,
    });
    return this.record(c);
  }
  async markFailed(chargeId: string, reason: string) {
    const c = this.docs.get(chargeId);
    if (c?.status === 'initializing') Object.assign(c, { status: 'failed', failure_reason: reason });
  }
  async abandonStale(staleBefore: Date, now: Date) {
    let n = 0;
    for (const c of this.docs.values()) {
      if (c.status === 'initializing' && c.updated_at <= staleBefore) {
        Object.assign(c, { status: 'failed', failure_reason: 'abandoned', updated_at: now });
        n++;
      }
    }
    return n;
  }
  async complete(
    chargeId: string,
    status: 'succeeded' | 'failed',
    failureReason: string | null,
    completedAt: Date,
    event: OutboxEntry,
    processorReference: string | null = null,
  ) {
    const c = this.docs.get(chargeId);
    if (!c || c.status !== 'pending') return null;
    Object.assign(c, { status, failure_reason: failureReason, completed_at: completedAt, updated_at: completedAt });
    if (processorReference) c.processor_reference = processorReference;
    this.events.push(event);
    return this.record(c);
  }
  async writeRefunds(
    chargeId: string,
    expectedVersion: number,
    change: RefundsChange,
    event: OutboxEntry | null,
    now: Date,
  ) {
    const c = this.docs.get(chargeId);
    if (!c || (c.refund_version ?? 0) !== expectedVersion) return null;
    Object.assign(c, clone(change), { refund_version: expectedVersion + 1, updated_at: now });
    if (event) this.events.push(event);
    return this.record(c);
  }
  async writeDisputeHold(chargeId: string, expectedVersion: number, change: DisputeHoldChange, now: Date) {
    const c = this.docs.get(chargeId);
    if (!c || (c.refund_version ?? 0) !== expectedVersion) return null;
    Object.assign(c, clone(change), { refund_version: expectedVersion + 1, updated_at: now });
    return this.record(c);
  }
  async withStalePendingRefunds(staleBefore: Date, limit: number) {
    return [...this.docs.values()]
      .filter((c) => c.refunds.some((r) => r.status === 'pending' && r.updated_at <= staleBefore))
      .slice(0, limit)
      .map((c) => this.record(c));
  }
  readonly ledgerChecked = new Set<string>();
  async dueForLedgerCheck(before: Date, limit: number) {
    return [...this.docs.values()]
      .filter((c) => c.status === 'succeeded' && !this.ledgerChecked.has(c.charge_id) && c.completed_at! <= before)
      .slice(0, limit)
      .map((c) => this.record(c));
  }
  async markLedgerChecked(chargeId: string) {
    this.ledgerChecked.add(chargeId);
  }
  private record(c: ChargeRecord & { reference_key?: string; idempotency_ref?: string }): ChargeRecord {
    const { reference_key: _r, idempotency_ref: _k, ...rest } = clone(c);
    return rest;
  }
}

export class MemorySessions implements SessionRepository {
  readonly docs = new Map<string, SessionRecord>();
  readonly events: OutboxEntry[] = [];

  async insertOrGetByIdempotencyKey(session: SessionRecord, events: OutboxEntry[] = []) {
    const taken = session.idempotency_key
      ? [...this.docs.values()].find(
          (s) =>
            s.merchant_id === session.merchant_id &&
            s.mode === session.mode &&
            s.idempotency_key === session.idempotency_key,
        )
      : undefined;
    if (taken) return { session: clone(taken), created: false };
    this.docs.set(session.session_id, clone(session));
    this.events.push(...events);
    return { session: clone(session), created: true };
  }
  async findById(id: string) {
    const s = this.docs.get(id);
    return s ? clone(s) : null;
  }
  async findForMerchant(id: string, merchantId: number, mode: Mode) {
    const s = this.docs.get(id);
    return s && s.merchant_id === merchantId && s.mode === mode ? clone(s) : null;
  }
  async findByIdempotencyKey(merchantId: number, mode: Mode, key: string) {
    const s = [...this.docs.values()].find(
      (d) => d.merchant_id === merchantId && d.mode === mode && d.idempotency_key === key,
    );
    return s ? clone(s) : null;
  }
  async claimAttempt(id: string, attemptId: string, now: Date, staleBefore: Date) {
    const s = this.docs.get(id);
    if (!s || s.status !== 'pending' || s.expires_at <= now) return null;
    if (s.in_flight && s.in_flight.started_at >= staleBefore) return null;
    s.in_flight = { attempt_id: attemptId, started_at: now };
    return clone(s);
  }
  async releaseAttempt(id: string, attemptId: string) {
    const s = this.docs.get(id);
    if (s?.in_flight?.attempt_id === attemptId) s.in_flight = null;
  }
  async finishAttempt(id: string, attemptId: string, change: AttemptChange, events: OutboxEntry[]) {
    const s = this.docs.get(id);
    if (!s || s.status !== 'pending' || s.in_flight?.attempt_id !== attemptId) return null;
    Object.assign(s, { status: change.status, completed_at: change.completed_at, in_flight: null });
    if (change.payment) s.payment = change.payment;
    if (change.shipping_address) s.shipping_address = change.shipping_address;
    if (change.stock_state) s.stock_state = change.stock_state;
    if (change.attempt) {
      s.attempts.push(change.attempt);
      s.attempt_count++;
    }
    this.events.push(...events);
    return clone(s);
  }
  async closeFromProcessor(id: string, change: ProcessorClose, events: OutboxEntry[]) {
    const s = this.docs.get(id);
    if (!s) return null;
    const open = ['pending', 'expired'].includes(s.status);
    if (change.status === 'completed') {
      if (!open || s.payment || (change.goods && s.stock_state !== change.goods.stock_from)) return null;
      Object.assign(s, { status: 'completed', completed_at: change.now, payment: change.payment, in_flight: null });
      if (change.goods) Object.assign(s, { shipping_address: change.goods.shipping_address, stock_state: 'commit' });
    } else if (change.release_stock) {
      if (!open || s.stock_state !== 'held') return null;
      Object.assign(s, { status: 'expired', stock_state: 'release' });
    } else {
      if (s.status !== 'pending' || s.in_flight) return null;
      s.status = 'expired';
    }
    s.updated_at = change.now;
    this.events.push(...events);
    return clone(s);
  }
  async openAtProcessor(
    id: string,
    attemptId: string,
    opened: Pick<SessionRecord, 'gateway_session_id' | 'payment_url' | 'expires_at'>,
    now: Date,
  ) {
    const s = this.docs.get(id);
    if (!s || s.status !== 'pending' || s.gateway_session_id !== '' || s.in_flight?.attempt_id !== attemptId) {
      return null;
    }
    Object.assign(s, { ...opened, stock_state: 'held', in_flight: null, updated_at: now });
    return clone(s);
  }
  async discardUnopened(id: string, attemptId: string) {
    const s = this.docs.get(id);
    if (s && s.gateway_session_id === '' && s.in_flight?.attempt_id === attemptId) this.docs.delete(id);
  }
  async heldPastExpiry(before: Date, limit: number) {
    return [...this.docs.values()]
      .filter((s) => s.stock_state === 'held' && s.expires_at < before)
      .slice(0, limit)
      .map(clone);
  }
  async expire(id: string, now: Date) {
    const s = this.docs.get(id);
    if (s && s.status === 'pending' && s.expires_at <= now && !s.in_flight) s.status = 'expired';
  }
  readonly ledgerChecked = new Set<string>();
  async dueForLedgerCheck(before: Date, limit: number) {
    return [...this.docs.values()]
      .filter((s) => s.status === 'completed' && !this.ledgerChecked.has(s.session_id) && s.completed_at! <= before)
      .slice(0, limit)
      .map(clone);
  }
  async markLedgerChecked(sessionId: string) {
    this.ledgerChecked.add(sessionId);
  }
  async withStockToSettle(limit: number) {
    return [...this.docs.values()]
      .filter(
        (s) =>
          s.stock_state === 'commit' ||
          s.stock_state === 'release' ||
          (s.stock_state === 'open' && (s.status === 'expired' || s.status === 'failed')),
      )
      .slice(0, limit)
      .map(clone);
  }
  async markStockSettled(id: string, from: 'open' | 'release' | 'commit', to: 'settled' | 'open' = 'settled') {
    const s = this.docs.get(id);
    if (s?.stock_state === from) s.stock_state = to;
  }
  async expireDue(now: Date) {
    let n = 0;
    for (const s of this.docs.values()) {
      if (s.status === 'pending' && s.expires_at <= now && !s.in_flight) {
        s.status = 'expired';
        n++;
      }
    }
    return n;
  }
}

export class MemoryLedger implements LedgerRepository {
  readonly entries = new Map<string, LedgerEntry>();
  async append(entries: LedgerEntry[]) {
    const inserted = entries.filter((e) => !this.entries.has(e.idempotency_key));
    for (const e of inserted) this.entries.set(e.idempotency_key, clone(e));
    return { inserted, duplicates: entries.length - inserted.length };
  }
  async balances(): Promise<WalletBalanceEntry[]> {
    return [];
  }
  async hasEntriesFor(chargeId: string) {
    return [...this.entries.values()].some((e) => e.charge_id === chargeId);
  }
  async entriesForCharge(chargeId: string) {
    return [...this.entries.values()].filter((e) => e.charge_id === chargeId).map(clone);
  }
}

export class FakeMerchants implements MerchantDirectory {
  readonly profiles = new Map<number, MerchantProfile>();
  add(profile: Partial<MerchantProfile> & { merchant_id: number }): MerchantProfile {
    const full: MerchantProfile = {
      country: 'NG',
      baseline_currency: 'NGN',
      customer_pays_fees: false,
      is_marketplace_operator: false,
      business_name: `Merchant ${profile.merchant_id}`,
      ...profile,
    };
    this.profiles.set(full.merchant_id, full);
    return full;
  }
  async get(merchantId: number) {
    const p = this.profiles.get(merchantId);
    if (!p) throw new PlatformError('MERCHANT_NOT_FOUND');
    return p;
  }
}

/** A fixed rate table in major units per 1 USD; converts exactly like fx-pricing (round half up). */
export class FakeFx implements FxConverter {
  calls = 0;
  constructor(private readonly perUsd: Record<string, number> = { USD: 1, NGN: 1500, EUR: 0.9 }) {}
  async convert(from: Money, toCurrency: string): Promise<FxQuote> {
    this.calls++;
    const rate = this.perUsd[toCurrency]! / this.perUsd[from.currency]!;
    if (!Number.isFinite(rate)) throw new PlatformError('CONVERSION_FAILED');
    return {
      result: convertMoney(from, toCurrency, String(rate)),
      rate,
      rate_decimal: String(rate),
      source: 'test',
      surcharge_percent: 0,
    };
  }
}

/** Relationships per mode, as marketplace keeps them (default: sandbox). */
export class FakeSplits implements SplitResolver {
  readonly terms = new Map<string, SplitTerms | PlatformError>();
  set(operator: number, sub: number, terms: SplitTerms | PlatformError, mode: Mode = 'sandbox') {
    this.terms.set(`${mode}:${operator}:${sub}`, terms);
  }
  async resolve(operator: number, sub: number, mode: Mode) {
    const t = this.terms.get(`${mode}:${operator}:${sub}`);
    if (!t) throw new PlatformError('RELATIONSHIP_NOT_FOUND');
    if (t instanceof PlatformError) throw t;
    return t;
  }
}

export class FakeProducts implements ProductLookup {
  /** 7: a digital product; 8: a physical one customers may pay in installments; 9: a shirt in two sizes. */
  readonly products = new Map<number, CatalogueProduct>([
    [7, catalogueProduct({ name: 'Catalogue product', type: 'digital' })],
    [
      8,
      catalogueProduct({
        name: 'Laptop',
        type: 'physical',
        installments_allowed: true,
        price: { amount: 500_000, currency: 'NGN' },
        shipping: { fee: { amount: 0, currency: 'NGN' }, countries: ['NG', 'GH'] },
      }),
    ],
    [
      9,
      catalogueProduct({
        name: 'Shirt',
        type: 'physical',
        price: { amount: 400_000, currency: 'NGN' },
        variations: [
          { variation_id: 'var_s', name: 'S', price: null },
          { variation_id: 'var_xl', name: 'XL', price: { amount: 450_000, currency: 'NGN' } },
        ],
        shipping: { fee: { amount: 150_000, currency: 'NGN' }, countries: ['NG'] },
      }),
    ],
  ]);
  async product(_merchantId: number, _mode: Mode, productId: number) {
    const p = this.products.get(productId);
    if (!p) throw new PlatformError('PRODUCT_NOT_FOUND', undefined, { param: 'product_id' });
    return structuredClone(p);
  }
}

function catalogueProduct(p: Partial<CatalogueProduct> & Pick<CatalogueProduct, 'name' | 'type'>): CatalogueProduct {
  return {
    installments_allowed: false,
    price: { amount: 100_000, currency: 'NGN' },
    variations: [],
    shipping: null,
    for_sale: true,
    ...p,
  };
}

export class MemoryPaymentMethods implements PaymentMethodRepository {
  readonly docs = new Map<string, PaymentMethodRecord>();
  async insertOrGetBySession(method: PaymentMethodRecord) {
    const taken = [...this.docs.values()].find((m) => m.origin_session_id === method.origin_session_id);
    if (taken) return clone(taken);
    this.docs.set(method.payment_method_id, clone(method));
    return clone(method);
  }
  async insert(method: PaymentMethodRecord) {
    this.docs.set(method.payment_method_id, clone(method));
  }
  async findForMerchant(merchantId: number, mode: Mode, id: string) {
    const m = this.docs.get(id);
    return m && m.merchant_id === merchantId && m.mode === mode ? clone(m) : null;
  }
}
