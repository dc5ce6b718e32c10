import {
  addMoney,
  isCountryCode,
  PlatformError,
  type Money,
  type OrderSplit,
  type PaymentOutcome,
  type ShippingAddress,
} from '@ppay/kernel';
import type { ChargeSplit } from '../charges/charge';
import type { OrderDraft } from '../orders/order';
import type { LedgerEntry } from '../wallets/ledger-entry';
import type { CatalogueProduct } from './ports';

/** Units one checkout may buy of a physical product. */
export const MAX_QUANTITY = 100;

/**
 * What a checkout of a physical product buys (docs/decisions.md, Products and orders): the product (or
 * one of its variations), how many, at what unit price and shipping fee (in the product's currency), and
 * where it may ship.
 */
export interface GoodsLine {
  product_id: number;
  variation: { variation_id: string; name: string } | null;
  quantity: number;
  unit_price: Money;
  shipping_fee: Money;
  ships_to: string[];
}

const invalid = (param: string, message: string) => new PlatformError('VALIDATION_FAILED', message, { param });

/**
 * The line a session for `product` buys (every product must be for sale): a physical product that ships,
 * a quantity of 1 to 100 and the variation when it has them. Anything else cannot take a quantity or a
 * variation.
 */
export function goodsLineOf(
  product: CatalogueProduct,
  productId: number,
  request: { quantity?: number; variation_id?: string },
): GoodsLine | null {
  if (!product.for_sale) {
    throw new PlatformError('PRODUCT_UNAVAILABLE', undefined, { param: 'product_id' });
  }
  // A seeded physical product without shipping (the seed file's demos) sells as it always did: by the
  // session's amount, no address, no stock, no order. Partner-made physical products always ship.
  if (product.type !== 'physical' || !product.shipping) {
    if (request.quantity !== undefined && request.quantity !== 1) {
      throw invalid('quantity', 'quantity is only for physical products that ship');
    }
    if (request.variation_id) throw invalid('variation_id', 'this product has no variations');
    return null;
  }
  const quantity = request.quantity ?? 1;
  if (!Number.isSafeInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) {
    throw invalid('quantity', `quantity must be a whole number from 1 to ${MAX_QUANTITY}`);
  }
  let variation: CatalogueProduct['variations'][number] | undefined;
  if (product.variations.length) {
    if (!request.variation_id) {
      throw invalid('variation_id', `choose a variation: ${product.variations.map((v) => v.variation_id).join(', ')}`);
    }
    variation = product.variations.find((v) => v.variation_id === request.variation_id);
    if (!variation) throw invalid('variation_id', `no variation ${request.variation_id} on this product`);
  } else if (request.variation_id) {
    throw invalid('variation_id', 'this product has no variations');
  }
  return {
    product_id: productId,
    variation: variation ? { variation_id: variation.variation_id, name: variation.name } : null,
    quantity,
    unit_price: variation?.price ?? product.price,
    shipping_fee: product.shipping.fee,
    ships_to: product.shipping.countries,
  };
}

/**
 * A physical product is sold once: its order, stock and shipping are those of one payment. A plan's later
 * parts or a subscription's renewals are charged off the page, where no order is made and no stock taken,
 * so the combination is refused before anything is priced, held or saved (seeded products without shipping
 * too: they are still goods someone ships).
 */
export function assertSoldOnce(
  product: Pick<CatalogueProduct, 'type'>,
  request: { installments?: unknown; subscription_frequency_key?: string; trial_days?: number },
): void {
  if (product.type !== 'physical') return;
  const param =
    request.installments !== undefined
      ? 'installments'
      : request.subscription_frequency_key?.trim()
        ? 'subscription_frequency_key'
        : request.trial_days
          ? 'trial_days'
          : null;
  if (param) throw new PlatformError('PHYSICAL_GOODS_NOT_RECURRING', undefined, { param });
}

/** Price × quantity + shipping, in the product's currency (exact integers). */
export function lineTotal(line: GoodsLine): Money {
  const units = BigInt(line.unit_price.amount) * BigInt(line.quantity);
  const amount = Number(units) + line.shipping_fee.amount;
  if (!Number.isSafeInteger(amount)) throw invalid('quantity', 'the total is too large');
  return addMoney({ amount: Number(units), currency: line.unit_price.currency }, line.shipping_fee);
}

const ADDRESS_LIMITS = {
  name: 200,
  line1: 200,
  line2: 200,
  city: 100,
  state: 100,
  postal_code: 20,
  country: 2,
  phone: 30,
} as const;

export type AddressInput = Partial<Record<keyof typeof ADDRESS_LIMITS, string>>;

/**
 * The shipping address a customer typed on the hosted page: name, line1, city and country required,
 * every field bounded, the country one the product ships to (the page says which).
 */
export function shippingAddressOf(input: AddressInput | undefined, line: GoodsLine): ShippingAddress {
  const field = (key: keyof typeof ADDRESS_LIMITS, required: boolean): string | null => {
    const raw = input?.[key] ?? '';
    if (typeof raw !== 'string' || raw.length > ADDRESS_LIMITS[key] * 2) {
      throw invalid(`shipping.${key}`, `${key} must be at most ${ADDRESS_LIMITS[key]} characters`);
    }
    const value = raw.trim();
    if (value.length > ADDRESS_LIMITS[key]) {
      throw invalid(`shipping.${key}`, `${key} must be at most ${ADDRESS_LIMITS[key]} characters`);
    }
    if (required && !value)
      throw invalid(`shipping.${key}`, `Please enter the ${key.replace('_', ' ')} of the address`);
    return value || null;
  };
  const name = field('name', true)!;
  const line1 = field('line1', true)!;
  const line2 = field('line2', false);
  const city = field('city', true)!;
  const state = field('state', false);
  const postal_code = field('postal_code', false);
  const country = (field('country', true) ?? '').toUpperCase();
  if (!isCountryCode(country)) throw invalid('shipping.country', 'Please choose the country to ship to');
  if (!line.ships_to.includes(country)) {
    throw invalid(
      'shipping.country',
      `Sorry, this product does not ship to ${country}. It ships to ${line.ships_to.join(', ')}.`,
    );
  }
  return { name, line1, line2, city, state, postal_code, country, phone: field('phone', false) };
}

/**
 * What the wallet credits of a marketplace payment gave its sub-merchant (the ledger's `marketplace_split`
 * entry): the commission rate and amount it was judged at, and the net credited. null: nothing was credited
 * (the sub-merchant was not active when the payment succeeded, or its share came to nothing).
 */
export interface SplitCredit {
  commission_rate: string;
  commission: Money;
  net: Money;
}

/** The sub-merchant's split credit among a charge's payment credits, or null when there is none. */
export function splitCreditOf(
  credits: readonly Pick<LedgerEntry, 'merchant_id' | 'reason' | 'amount' | 'conversion_details'>[],
  subMerchantId: number,
): SplitCredit | null {
  for (const e of credits) {
    const d = e.conversion_details;
    if (e.reason !== 'marketplace_split' || e.merchant_id !== subMerchantId || d?.source !== 'marketplace_split') {
      continue;
    }
    return {
      commission_rate: d.commission_rate,
      commission: { amount: d.commission_amount, currency: e.amount.currency },
      net: e.amount,
    };
  }
  return null;
}

/**
 * How a marketplace order's product total split: as its payment's wallet credits decided it, not as the
 * session's terms foresaw. A sub-merchant credited nothing shows nothing: no commission, no amount (the
 * operator kept the payment), at the rate the session was made with.
 */
function orderSplitOf(
  operatorId: number,
  subMerchantId: number,
  terms: ChargeSplit,
  credit: SplitCredit | null,
  total: Money,
): OrderSplit {
  const none = { amount: 0, currency: total.currency };
  return {
    operator_id: operatorId,
    sub_merchant_id: subMerchantId,
    commission_rate: credit?.commission_rate ?? terms.commission_rate,
    commission: credit?.commission ?? none,
    sub_merchant_amount: credit?.net ?? none,
  };
}

/** The order a paid checkout of a physical product makes (orders/), from the session and its payment's outcome. */
export function orderDraftOf(
  s: {
    merchant_id: number;
    mode: OrderDraft['mode'];
    session_id: string;
    product: { id: number | null; name: string; type: string };
    sub_merchant_id: number | null;
    split: ChargeSplit | null;
  },
  line: GoodsLine,
  address: ShippingAddress,
  outcome: Pick<PaymentOutcome, 'charge_id' | 'breakdown' | 'customer' | 'total'>,
  credit: SplitCredit | null = null,
): OrderDraft {
  // A marketplace sale is the sub-merchant's order (it ships); the operator keeps the charge.
  const split =
    s.sub_merchant_id !== null && s.split
      ? orderSplitOf(s.merchant_id, s.sub_merchant_id, s.split, credit, outcome.total)
      : null;
  return {
    merchant_id: split ? split.sub_merchant_id : s.merchant_id,
    split,
    mode: s.mode,
    product: { id: s.product.id, title: s.product.name, type: s.product.type },
    variation: line.variation,
    quantity: line.quantity,
    amount: outcome.breakdown,
    shipping_address: address,
    customer: {
      email: outcome.customer.email,
      first_name: outcome.customer.first_name,
      last_name: outcome.customer.last_name,
    },
    charge_id: outcome.charge_id,
    session_id: s.session_id,
  };
}
