import { DEFAULT_FEE_SCHEDULE } from '../charges/fees';
import {
  FakeFx,
  FakeMerchants,
  FakeProducts,
  FakeSplits,
  MemoryCharges,
  MemoryLedger,
  MemoryPaymentMethods,
  MemorySessions,
} from '../memory-ports.test-util';
import type { ProcessorRegistry } from '../processors/ports';
import { FakeCardProcessor, FakeProcessors } from '../processors/processors.test-util';
import { OffSessionChargeService } from '../payment-methods/off-session-charges';
import { PaymentMethodService } from '../payment-methods/payment-methods';
import type { SessionRequest } from './session-request';
import { newOrder, type OrderDraft } from '../orders/order';
import { WalletCredits } from '../wallets/wallet-credits';
import { GoodsCheckout } from './goods-checkout';
import { LiveGoodsCheckout } from './live-goods';
import { ProcessorCheckout } from './processor-checkout';
import type { StockHolds, StockLine } from './ports';
import { SessionService } from './sessions';

/** Stock in memory with fx-pricing's rules: a hold per session, never below zero; no level: unlimited. */
export class FakeStock implements StockHolds {
  readonly levels = new Map<number, number>();
  readonly holds = new Map<string, StockLine>();
  down = false;
  /** fx-pricing lost after the hold: keeping and giving back fail. */
  settleDown = false;
  async hold(line: StockLine, sessionId: string) {
    if (this.down) throw new Error('fx-pricing unavailable');
    const level = this.levels.get(line.product_id);
    if (level === undefined) return 'unlimited' as const;
    if (this.holds.has(sessionId)) return 'held' as const;
    if (level < line.quantity) return 'sold_out' as const;
    this.levels.set(line.product_id, level - line.quantity);
    this.holds.set(sessionId, line);
    return 'held' as const;
  }
  async settle(productId: number, sessionId: string, sold: boolean) {
    if (this.down || this.settleDown) throw new Error('fx-pricing unavailable');
    const held = this.holds.get(sessionId);
    if (!held) return;
    this.holds.delete(sessionId);
    if (!sold) this.levels.set(productId, (this.levels.get(productId) ?? 0) + held.quantity);
  }
}

/** Card form inputs for FakeCardProcessor, by what they do. */
export const VISA = { number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' };
export const DECLINED = { number: '4000 0000 0000 0002', expiry: '12/34', cvc: '123' };
export const BROKEN = { number: '4000 0000 0000 0119', expiry: '12/34', cvc: '123' };
/** Pays on the page, declines off-session (renewals). */
export const RENEWS_THEN_DECLINES = { number: '4000 0000 0000 0341', expiry: '12/34', cvc: '123' };

/** A monthly subscription checkout of merchant 1000. */
export const SUBSCRIPTION: SessionRequest = {
  amount: 500_000,
  currency: 'NGN',
  product_name: 'Bread club',
  customer: { email: 'ada@example.com' },
  subscription_frequency_key: 'monthly',
};

/** ₦3,000.01 in 3 monthly parts, sold by name (the session's own `installments` allows the split). */
export const INSTALLMENTS: SessionRequest = {
  amount: 300_001,
  currency: 'NGN',
  product_name: 'Laptop',
  customer: { email: 'ada@example.com' },
  installments: { count: 3, interval: 'monthly' },
};

/**
 * Hosted checkout over in-memory ports, with the saved payment methods a subscription checkout makes
 * and their off-session charges: merchant 1000 ("Ada & Sons"), a clock the test moves.
 */
export function checkoutSetup(options: { maxAttempts?: number; processors?: ProcessorRegistry } = {}) {
  const merchants = new FakeMerchants();
  merchants.add({ merchant_id: 1000, business_name: 'Ada & Sons' });
  const sessions = new MemorySessions();
  const charges = new MemoryCharges();
  const methods = new MemoryPaymentMethods();
  const cards = new FakeCardProcessor();
  let clock = Date.parse('2026-11-01T10:00:00Z');
  const now = () => new Date(clock);
  const paymentMethods = new PaymentMethodService({ methods, cards }, now);
  const offSession = new OffSessionChargeService(
    { methods, charges, merchants, cards, processors: new FakeProcessors() },
    { feeSchedule: DEFAULT_FEE_SCHEDULE },
    now,
  );
  const products = new FakeProducts();
  const stock = new FakeStock();
  const splits = new FakeSplits();
  const ledger = new MemoryLedger();
  const credits = new WalletCredits(ledger, splits, now);
  const orders: OrderDraft[] = [];
  const goods = new GoodsCheckout(
    {
      fx: new FakeFx(),
      stock,
      orders: {
        record: async (d) => {
          if (!orders.some((o) => o.charge_id === d.charge_id)) orders.push(d);
          return { ...newOrder(d, new Date(clock)) };
        },
      },
      credits,
      charges,
      sessions,
    },
    undefined,
    { attemptStaleMs: 30_000, now },
  );
  const processors = options.processors ?? new FakeProcessors();
  const processorCheckout = new ProcessorCheckout({ sessions, charges, processors, paymentMethods }, now);
  const liveGoods = new LiveGoodsCheckout(
    { sessions, goods, stock, checkout: processorCheckout },
    { attemptStaleMs: 30_000, now },
  );
  const service = new SessionService(
    {
      merchants,
      processors,
      products,
      sessions,
      cards,
      paymentMethods,
      charges,
      goods,
      splits,
      liveGoods,
    },
    {
      feeSchedule: DEFAULT_FEE_SCHEDULE,
      ttlMs: 30 * 60_000,
      maxAttempts: options.maxAttempts ?? 3,
      attemptStaleMs: 30_000,
    },
    now,
  );
  return {
    service,
    goods,
    liveGoods,
    processorCheckout,
    products,
    stock,
    orders,
    splits,
    ledger,
    credits,
    merchants,
    sessions,
    charges,
    methods,
    cards,
    paymentMethods,
    offSession,
    now,
    advance: (ms: number) => (clock += ms),
  };
}
