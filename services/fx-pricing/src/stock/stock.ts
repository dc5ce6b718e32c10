import { PlatformError, type Mode } from '@ppay/kernel';
import { OWN_STOCK, productNotFound, type ProductRecord } from '../catalogue/product';
import type { StockRepository } from './ports';

/** How long a stock return is remembered (a repeat of the same return within it changes nothing). */
export const RETURN_MEMORY_MS = 7 * 24 * 60 * 60 * 1000;

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
 * submits the payment form, and is then committed (sold: the units stay taken) or released (the payment
 * failed, the session expired: they come back). Holds are keyed by checkout session, so a retried
 * attempt on the same session never takes units twice. A cancelled order gives its units back once.
 * Never below zero: a hold is a conditional decrement.
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
    const { product, key } = await this.locate(req);
    if (!isLimited(product, key)) return 'unlimited';
    const result = await this.deps.stock.hold(product.id, key, req.quantity, holdId, this.now());
    return result === 'short' ? 'sold_out' : 'held';
  }

  release(productId: number, holdId: string): Promise<boolean> {
    return this.deps.stock.release(productId, holdId);
  }

  commit(productId: number, holdId: string): Promise<void> {
    return this.deps.stock.commit(productId, holdId);
  }

  /** A cancelled order's units back to the product (or its variation), once per order. */
  async giveBack(req: StockRequest, returnId: string): Promise<boolean> {
    const product = await this.deps.products.find(req.merchant_id, req.product_id);
    if (!product) return false; // deleted with its merchant: nothing to give back to
    const key = req.variation_id ?? OWN_STOCK;
    const now = this.now();
    return this.deps.stock.giveBack(
      product.id,
      key,
      req.quantity,
      returnId,
      now,
      new Date(now.getTime() - RETURN_MEMORY_MS),
    );
  }

  private async locate(req: StockRequest): Promise<{ product: ProductRecord; key: string }> {
    if (!Number.isSafeInteger(req.quantity) || req.quantity < 1) {
      throw new PlatformError('VALIDATION_FAILED', 'quantity must be a positive whole number', { param: 'quantity' });
    }
    const product = await this.deps.products.find(req.merchant_id, req.product_id);
    if (!product || (product.mode !== null && product.mode !== req.mode)) throw productNotFound();
    if (req.variation_id && !product.variations.some((v) => v.variation_id === req.variation_id)) {
      throw new PlatformError('VALIDATION_FAILED', `no variation ${req.variation_id} on this product`, {
        param: 'variation_id',
      });
    }
    return { product, key: req.variation_id ?? OWN_STOCK };
  }
}

function isLimited(p: ProductRecord, key: string): boolean {
  if (p.type !== 'physical') return false;
  const level = key === OWN_STOCK ? p.stock : p.variations.find((v) => v.variation_id === key)?.stock;
  return level !== null && level !== undefined;
}
