import type { Mode, Money } from '@ppay/kernel';

/** A catalogue product as checkout needs it (fx-pricing owns the catalogue). */
export interface CatalogueProduct {
  name: string;
  type: string;
  installments_allowed: boolean;
  /** In the product's currency. */
  price: Money;
  variations: { variation_id: string; name: string; price: Money | null }[];
  /** Physical products: the fee per order and where it ships. */
  shipping: { fee: Money; countries: string[] } | null;
  /** Active and not archived: new checkouts may sell it. */
  for_sale: boolean;
}

export interface ProductLookup {
  /** PRODUCT_NOT_FOUND when the merchant has no such product in this mode. */
  product(merchantId: number, mode: Mode, productId: number): Promise<CatalogueProduct>;
}

/** Units of one product (or one of its variations) a checkout buys. */
export interface StockLine {
  merchant_id: number;
  mode: Mode;
  product_id: number;
  variation_id: string | null;
  quantity: number;
}

/**
 * The stock of physical products (fx-pricing): a hold per checkout session, taken when the customer
 * submits our page's form (a live session: when it is made, live-goods.ts), then kept (sold) or given
 * back (the payment failed, the session expired).
 */
export interface StockHolds {
  hold(line: StockLine, sessionId: string): Promise<'held' | 'unlimited' | 'sold_out'>;
  /** Keeps (sold) or gives back the session's hold; repeats change nothing. */
  settle(productId: number, sessionId: string, sold: boolean): Promise<void>;
}
