import { Type, type TSchema } from '@sinclair/typebox';
import { Country, Cursor, LIMITS, Nullable, StringEnum, VariationId } from './common';

/** A merchant's own products (docs/decisions.md, Products and orders). */

const DateTime = Type.String({ format: 'date-time', maxLength: 40 });
const TYPES = ['digital', 'physical', 'service'] as const;

/** Spec 6.5 MoneyAmount: integer minor units and the ISO 4217 code, as an object. */
const MoneyAmount = Type.Object({ amount: Type.Integer(), currency: Type.String() });
const MoneyInput = (description?: string) =>
  Type.Object(
    {
      amount: Type.Integer({ minimum: 0, maximum: LIMITS.amount, description: 'Minor units' }),
      currency: Type.String({ minLength: 3, maxLength: 3 }),
    },
    { additionalProperties: false, description },
  );
/** "X or null" in a request: no default, so an absent field stays absent (PATCH: unchanged). */
const OrNull = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], { description });
const Stock = (description: string) => OrNull(Type.Integer({ minimum: 0, maximum: 1_000_000_000 }), description);

export const ProductParams = Type.Object({ product_id: Type.Integer({ minimum: 1, maximum: LIMITS.amount }) });

const VariationInput = Type.Object(
  {
    variation_id: Type.Optional(VariationId('New: its id (default `var_…`); PATCH: an existing variation to keep')),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    price: Type.Optional(OrNull(MoneyInput(), "Its own price, in the product's currency; null: the product's")),
    stock: Type.Optional(Stock('Physical only: units for sale; null or absent: unlimited (PATCH: absent keeps it)')),
  },
  { additionalProperties: false },
);

const ShippingInput = Type.Object(
  {
    fee: MoneyInput("Per order, in the product's currency"),
    countries: Type.Array(Country('ISO 3166-1 alpha-2'), { minItems: 1, maxItems: 250, description: 'Where it ships' }),
  },
  { additionalProperties: false },
);

const productFields = {
  title: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.String({ maxLength: 5_000 })),
  type: StringEnum(TYPES),
  price: MoneyInput("In one of the currencies the platform prices in (e.g. the merchant's baseline)"),
  variations: Type.Optional(Type.Array(VariationInput, { maxItems: 50 })),
  stock: Type.Optional(Stock('Physical products without variations: units for sale; null or absent: unlimited')),
  shipping: Type.Optional(OrNull(ShippingInput, 'Physical products (required for them)')),
  active: Type.Optional(Type.Boolean({ default: true })),
  installments_allowed: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'Customers may pay it in installments (POST /payments/sessions with installments)',
    }),
  ),
};

export const ProductBody = Type.Object(productFields, { additionalProperties: false });

export const ProductPatchBody = Type.Object(
  {
    title: Type.Optional(productFields.title),
    description: productFields.description,
    type: Type.Optional(productFields.type),
    price: Type.Optional(productFields.price),
    variations: productFields.variations,
    stock: productFields.stock,
    shipping: productFields.shipping,
    active: Type.Optional(Type.Boolean()),
    installments_allowed: Type.Optional(Type.Boolean()),
    stock_adjustment: Type.Optional(
      Type.Integer({
        minimum: -1_000_000_000,
        maximum: 1_000_000_000,
        description: 'Added to the stock (negative takes away; never below 0), of `variation_id` when given',
      }),
    ),
    variation_id: Type.Optional(VariationId('The variation whose stock `stock_adjustment` moves')),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ProductListQuery = Type.Object(
  {
    type: Type.Optional(StringEnum([...TYPES, 'subscription'] as const)),
    active: Type.Optional(Type.Boolean()),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Cursor()),
  },
  { additionalProperties: false },
);

export const ProductData = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    description: Type.String(),
    type: StringEnum([...TYPES, 'subscription'] as const),
    price: MoneyAmount,
    variations: Type.Array(
      Type.Object({
        variation_id: Type.String(),
        name: Type.String(),
        price: Nullable(MoneyAmount),
        stock: Nullable(Type.Integer()),
      }),
    ),
    stock: Nullable(Type.Integer(), { description: 'Units for sale; null: unlimited (or kept per variation)' }),
    shipping: Nullable(Type.Object({ fee: MoneyAmount, countries: Type.Array(Type.String()) })),
    active: Type.Boolean(),
    installments_allowed: Type.Boolean({ default: false }),
    archived_at: Nullable(DateTime),
    is_live: Type.Boolean(),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { additionalProperties: false },
);

export const ProductList = Type.Object({
  products: Type.Array(ProductData),
  has_more: Type.Boolean(),
  next_cursor: Nullable(Type.String()),
});
