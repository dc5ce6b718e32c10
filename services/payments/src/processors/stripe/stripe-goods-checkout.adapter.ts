import type Stripe from 'stripe';
import { PlatformError } from '@ppay/kernel';
import type { CheckoutGoods } from '../ports';

/**
 * Countries Stripe Checkout cannot collect a shipping address in: `allowed_countries` refuses them (the
 * API description of the pinned version lists them as unsupported). A product shipping there as well is
 * offered the others; one shipping only there cannot be sold on Stripe's page.
 */
const NOT_COLLECTED = new Set([
  'AS',
  'CX',
  'CC',
  'CU',
  'HM',
  'IR',
  'KP',
  'MH',
  'FM',
  'NF',
  'MP',
  'PW',
  'SY',
  'UM',
  'VI',
]);

type GoodsParams = Pick<
  Stripe.Checkout.SessionCreateParams,
  'line_items' | 'shipping_address_collection' | 'shipping_options'
>;

/**
 * A physical product's Checkout Session (docs/decisions.md, S33): its lines as the customer sees them
 * (the product, the fee the customer pays), the shipping fee as the one fixed shipping option, and the
 * address collected in the countries the product ships to. Stripe's `amount_total` is then the lines
 * plus the shipping option: the session's total, which the completed event is checked against. Nothing
 * (no fields) for any other session.
 */
export function goodsSessionParams(goods: CheckoutGoods | null | undefined): GoodsParams {
  if (!goods) return {};
  const allowed = goods.ships_to.filter((c) => !NOT_COLLECTED.has(c));
  if (!allowed.length) {
    throw new PlatformError(
      'VALIDATION_FAILED',
      `Stripe's checkout page cannot collect an address in ${goods.ships_to.join(', ')}, the only countries this product ships to`,
      { param: 'product_id' },
    );
  }
  const currency = goods.shipping.currency.toLowerCase();
  return {
    line_items: goods.lines.map((line) => ({
      price_data: {
        currency: line.unit_amount.currency.toLowerCase(),
        unit_amount: line.unit_amount.amount,
        product_data: { name: line.name.slice(0, 250) },
      },
      quantity: line.quantity,
    })),
    shipping_address_collection: {
      allowed_countries: allowed as Stripe.Checkout.SessionCreateParams.ShippingAddressCollection.AllowedCountry[],
    },
    shipping_options: [
      {
        shipping_rate_data: {
          type: 'fixed_amount',
          display_name: goods.shipping.amount ? 'Shipping' : 'Free shipping',
          fixed_amount: { amount: goods.shipping.amount, currency },
        },
      },
    ],
  };
}
