import type { Mode } from '@ppay/kernel';

/** A session's catalogue product (fx-pricing owns the catalogue). */
export interface ProductLookup {
  /** PRODUCT_NOT_FOUND when the merchant has no such product. */
  product(
    merchantId: number,
    mode: Mode,
    productId: number,
    currency: string,
  ): Promise<{ name: string; type: string; installments_allowed: boolean }>;
}
