import { isSafeKey, PlatformError, type Mode } from '@ppay/kernel';
import { OWN_STOCK, productNotFound, type ProductRecord } from '../catalogue/product';
import type { ReturnMemory, StockRepository } from './ports';

/** How long a stock return is remembered (a repeat of the same return within it changes nothing). */
export const RETURN_MEMORY_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * How many returns a product remembers at most, so its document stays small however many orders are
 * cancelled in a week: the oldest are forgotten first. A repeat comes from payments' order sweep a
 * minute or so after a crash, so forgetting the oldest of 1,000 never lets a real repeat count twice.
 */
export const RETURN_MEMORY_MAX = 1_000;

/**
 * The returns to forget before one more is recorded: those older than the memory, then the oldest
 * until `max - 1` remain (room for the new one). Ties on time go by id, so every writer picks the same.
 */
export function returnsToForget(returns: Iterable<[string, Date]>, memory: ReturnMemory): string[] {
  const kept: [string, number][] = [];
  const forget: string[] = [];
  for (const [id, at] of returns) {
    const time = new Date(at).getTime();
    if (time < memory.since.getTime()) forget.push(id);
    else kept.push([id, time]);
  }
  const excess = kept.length - Math.max(memory.max - 1, 0);
  if (excess > 0) {
    kept.sort(([a, ta], [b, tb]) => ta - tb || (a < b ? -1 : 1));
    forget.push(...kept.slice(0, excess).map(([id]) => id));
  }
  return forget;
}

export interface StockRequest {
  merchant_id: number;
  mode: Mode;
  product_id: number;
  /** The variation whose stock moves; none for a product without variations. */
  variation_id: string | null;
  quantity: number;
}

export type HoldOutcome = 'held' | 'unlimited' | 'sold_out';

/**
 * Stock of physical products, for checkout (payments calls it): a hold takes units when a customer
 * submits the payment form (a live session's when it is made), and is then committed (sold: the units stay taken) or released (the payment
 * failed, the session expired: they come back). Holds are keyed by checkout session, so a retried
 * attempt on the same session never takes units twice. A cancelled order gives its units back once.
 * Never below zero: a hold is a conditional decrement. A hold never expires here: payments ends every one
 * (committed or released by its checkout, or by its stock sweep once the session can no longer pay).
 */
export class StockService {
  constructor(
    private readonly deps: {
      products: { find(merchantId: number, productId: number): Promise<ProductRecord | null> };
      stock: StockRepository;
    },
    private readonly now: () => Date = () => new Date(),
  ) {}

  async hold(req: StockRequest, holdId: string): Promise<HoldOutcome> {
    checkEntryId(holdId, 'hold_id');
    const { product, key } = await this.locate(req);
    if (!isLimited(product, key)) return 'unlimited';
    const result = await this.deps.stock.hold(product.id, key, req.quantity, holdId, this.now());
    return result === 'short' ? 'sold_out' : 'held';
  }

  async release(productId: number, holdId: string): Promise<boolean> {
    checkEntryId(holdId, 'hold_id');
    return this.deps.stock.release(productId, holdId);
  }

  async commit(productId: number, holdId: string): Promise<void> {
    checkEntryId(holdId, 'hold_id');
    return this.deps.stock.commit(productId, holdId);
  }

  /** A cancelled order's units back to the product (or its variation), once per order. */
  async giveBack(req: StockRequest, returnId: string): Promise<boolean> {
    checkEntryId(returnId, 'hold_id');
    const product = await this.deps.products.find(req.merchant_id, req.product_id);
    if (!product) return false; // deleted with its merchant: nothing to give back to
    const key = keyOf(product, req.variation_id);
    if (key === undefined) return false; // the variation was removed since: nothing to give back to
    const now = this.now();
    return this.deps.stock.giveBack(product.id, key, req.quantity, returnId, now, {
      since: new Date(now.getTime() - RETURN_MEMORY_MS),
      max: RETURN_MEMORY_MAX,
    });
  }

  private async locate(req: StockRequest): Promise<{ product: ProductRecord; key: string }> {
    if (!Number.isSafeInteger(req.quantity) || req.quantity < 1) {
      throw new PlatformError('VALIDATION_FAILED', 'quantity must be a positive whole number', { param: 'quantity' });
    }
    const product = await this.deps.products.find(req.merchant_id, req.product_id);
    if (!product || (product.mode !== null && product.mode !== req.mode)) throw productNotFound();
    const key = keyOf(product, req.variation_id);
    if (key === undefined) {
      throw new PlatformError('VALIDATION_FAILED', `no variation ${req.variation_id} on this product`, {
        param: 'variation_id',
      });
    }
    return { product, key };
  }
}

/**
 * The stock level key of a request: the product's own (`_`), or the stored id of the variation it
 * names, never the request's string itself; undefined when the product has no such variation.
 */
function keyOf(product: ProductRecord, variationId: string | null): string | undefined {
  if (!variationId) return OWN_STOCK;
  return product.variations.find((v) => v.variation_id === variationId)?.variation_id;
}

/** Holds and returns are keyed by session and order ids (payments makes them): map keys, so checked. */
function checkEntryId(id: string, param: string): void {
  if (!isSafeKey(id)) throw new PlatformError('VALIDATION_FAILED', `${param} must be a session or order id`, { param });
}

function isLimited(p: ProductRecord, key: string): boolean {
  if (p.type !== 'physical') return false;
  const level = key === OWN_STOCK ? p.stock : p.variations.find((v) => v.variation_id === key)?.stock;
  return level !== null && level !== undefined;
}
