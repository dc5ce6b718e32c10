import { Type } from '@sinclair/typebox';
import { ORDER_STATUSES } from '@ppay/kernel';
import { absoluteUrlPattern, AT_LEAST_3_TRIMMED, Cursor, LIMITS, NOT_BLANK, Nullable, StringEnum } from './common';

/** Orders for physical products (docs/decisions.md, Products and orders); amounts as MoneyAmount objects. */

const DateTime = (description?: string) => Type.String({ format: 'date-time', maxLength: 40, description });
const MoneyAmount = Type.Object({ amount: Type.Integer(), currency: Type.String() });
const OrderId = Type.String({ minLength: 1, maxLength: 64, description: '`ord_…`' });

export const OrderParams = Type.Object({ order_id: OrderId });

export const OrderListQuery = Type.Object(
  {
    sub_merchant_id: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: LIMITS.amount,
        description: "A marketplace operator's key: only the orders sold for this sub-merchant",
      }),
    ),
    status: Type.Optional(StringEnum(ORDER_STATUSES)),
    product_id: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.amount })),
    from: Type.Optional(DateTime('Orders created at or after this time')),
    to: Type.Optional(DateTime('Orders created before this time')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Cursor()),
  },
  { additionalProperties: false },
);

export const FulfilBody = Type.Object(
  {
    carrier: Type.String({ minLength: 1, maxLength: 100, pattern: NOT_BLANK, description: 'Not blank' }),
    tracking_number: Type.String({ minLength: 1, maxLength: 100, pattern: NOT_BLANK, description: 'Not blank' }),
    tracking_url: Type.Optional(
      Type.String({
        maxLength: LIMITS.url,
        pattern: `^$|${absoluteUrlPattern('https')}`,
        description: 'Absolute https URL (empty: none)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const CancelBody = Type.Object(
  {
    reason: Type.String({
      minLength: 3,
      maxLength: 500,
      pattern: AT_LEAST_3_TRIMMED,
      description: '3 to 500 characters once surrounding spaces are trimmed',
    }),
  },
  { additionalProperties: false },
);

/** Spec 6.5 MulticurrencyBreakdown. */
const Breakdown = Type.Object({
  customer_paid: MoneyAmount,
  merchant_gross: MoneyAmount,
  merchant_net: MoneyAmount,
  fees: Type.Object({ platform_fee: MoneyAmount, gateway_fee: MoneyAmount, total: MoneyAmount }),
  conversion: Type.Optional(
    Type.Object({
      from_currency: Type.String(),
      to_currency: Type.String(),
      rate: Type.Number(),
      rate_decimal: Type.String(),
      surcharge_percent: Type.Number(),
    }),
  ),
});

export const ShippingAddressData = Type.Object({
  name: Type.String(),
  line1: Type.String(),
  line2: Nullable(Type.String()),
  city: Type.String(),
  state: Nullable(Type.String()),
  postal_code: Nullable(Type.String()),
  country: Type.String({ description: 'ISO-2' }),
  phone: Nullable(Type.String()),
});

export const OrderData = Type.Object(
  {
    order_id: Type.String(),
    status: StringEnum(ORDER_STATUSES),
    product: Type.Object({ id: Nullable(Type.Integer()), title: Type.String(), type: Type.String() }),
    variation: Nullable(Type.Object({ variation_id: Type.String(), name: Type.String() })),
    quantity: Type.Integer(),
    amount: Breakdown,
    shipping_address: ShippingAddressData,
    customer: Type.Object({ email: Type.String(), first_name: Type.String(), last_name: Type.String() }),
    charge_id: Type.String(),
    session_id: Type.String(),
    split: Nullable(
      Type.Object(
        {
          operator_id: Type.Integer(),
          sub_merchant_id: Type.Integer(),
          commission_rate: Type.String({ description: 'A fraction: "0.07" is 7 %' }),
          commission: MoneyAmount,
          sub_merchant_amount: MoneyAmount,
        },
        {
          description:
            "A marketplace sale: the order is the sub-merchant's (it ships), the charge the operator's; null otherwise",
        },
      ),
    ),
    fulfilments: Type.Array(
      Type.Object({
        carrier: Type.String(),
        tracking_number: Type.String(),
        tracking_url: Nullable(Type.String()),
        fulfilled_at: DateTime(),
      }),
    ),
    cancellation: Nullable(
      Type.Object({ reason: Type.String(), refund_id: Nullable(Type.String()), cancelled_at: DateTime() }),
    ),
    delivered_at: Nullable(DateTime()),
    is_live: Type.Boolean(),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false },
);

export const OrderList = Type.Object({
  orders: Type.Array(OrderData),
  has_more: Type.Boolean(),
  next_cursor: Nullable(Type.String()),
});
