import { Type } from '@sinclair/typebox';
import {
  Amount,
  Country,
  CurrencyCode,
  Cursor,
  Email,
  ExtraScalar,
  LIMITS,
  ModeEnum,
  Nullable,
  ScalarMetadata,
  StringEnum,
  Url,
  VariationId,
} from './common';
import { CurrencyOf, MinorUnitsOf } from './money';

const customerFields = {
  first_name: Type.Optional(Type.String({ maxLength: LIMITS.name })),
  last_name: Type.Optional(Type.String({ maxLength: LIMITS.name })),
  country: Type.Optional(Country()),
};

/** Spec 4.1 and 4.2 request customer block (other customer fields: not shown, so bounded extras pass). */
export const CustomerInput = Type.Object(
  { email: Type.Optional(Email), ...customerFields },
  { additionalProperties: ExtraScalar, maxProperties: 20 },
);

/** A charge's customer: spec 7.1 requires customer.email (400 `Missing required fields` without it). */
const ChargeCustomerInput = Type.Object(
  { email: Email, ...customerFields },
  { additionalProperties: ExtraScalar, maxProperties: 20 },
);

/**
 * Spec 4.1 request body, with its deprecated aliases (resolved by the route). amount, currency and
 * customer.email are required; a missing one still answers spec 7.1's code (app.ts): 422 `amount is
 * required`, 400 `Missing required fields`.
 */
export const ChargeBody = Type.Object(
  {
    amount: Amount(),
    currency: CurrencyCode(),
    total_amount: Type.Optional(Amount()),
    total_currency: Type.Optional(CurrencyCode()),
    original_product_amount: Type.Optional(Amount({ deprecated: true, description: 'Alias of total_amount' })),
    original_product_currency: Type.Optional(
      Type.String({ maxLength: LIMITS.currency, deprecated: true, description: 'Alias of total_currency' }),
    ),
    converted_total_amount: Type.Optional(Amount()),
    converted_total_currency: Type.Optional(CurrencyCode()),
    description: Type.Optional(Type.String({ maxLength: LIMITS.description })),
    reference: Type.Optional(Type.String({ maxLength: LIMITS.reference })),
    callback_url: Type.Optional(Url()),
    redirectUrl: Type.Optional(Url('Alias of callback_url')),
    redirect_url: Type.Optional(Url('Alias of callback_url')),
    customer: ChargeCustomerInput,
    user_country: Type.Optional(Country()),
    customer_country: Type.Optional(Country()),
    country_code: Type.Optional(Country()),
    billing_country: Type.Optional(Country()),
    shipping_country: Type.Optional(Country()),
    metadata: Type.Optional(ScalarMetadata),
    preview: Type.Optional(Type.Boolean()),
    sub_merchant_id: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.amount })),
  },
  { additionalProperties: ExtraScalar, maxProperties: 60 },
);

/** Spec 4.2 request body. */
export const SessionBody = Type.Object(
  {
    amount: Type.Optional(Amount()),
    currency: Type.Optional(CurrencyCode()),
    product_id: Type.Optional(Type.Integer({ maximum: LIMITS.amount })),
    product_name: Type.Optional(Type.String({ maxLength: LIMITS.name })),
    customer: Type.Optional(CustomerInput),
    success_url: Type.Optional(Url()),
    cancel_url: Type.Optional(Url()),
    subscription_frequency_key: Type.Optional(
      Type.String({
        maxLength: 32,
        description: 'Makes the session a subscription: weekly, monthly, quarterly, biannually or yearly',
      }),
    ),
    trial_days: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 730,
        description: 'Beyond the spec: free trial days of a subscription session (the card is saved, not charged)',
      }),
    ),
    quantity: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        description: 'A physical product: how many (default 1); its total (price × quantity + shipping) is computed',
      }),
    ),
    variation_id: Type.Optional(VariationId('A physical product with variations: which one')),
    sub_merchant_id: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: LIMITS.amount,
        description:
          "A marketplace operator's key: sell for this active sub-merchant; the payment splits as a marketplace " +
          "charge does and a physical product's order is the sub-merchant's (one-time payments only)",
      }),
    ),
    installments: Type.Optional(
      Type.Object(
        {
          count: Type.Integer({ minimum: 2, maximum: 12 }),
          interval: StringEnum(['weekly', 'monthly'] as const),
        },
        {
          additionalProperties: false,
          description:
            'Pay the amount in parts (a product needs installments_allowed; an amount sold by product_name may ' +
            'always be split): the first on the checkout page, the others charged to the saved card on the schedule',
        },
      ),
    ),
    metadata: Type.Optional(ScalarMetadata),
  },
  { additionalProperties: ExtraScalar, maxProperties: 40 },
);

/** Spec 2.2 fee_details, from the wire FeeDetails (Money in the charge currency). */
const FeeDetails = Type.Object({
  base_amount: MinorUnitsOf('base'),
  transaction_fee: MinorUnitsOf('fee'),
  total_amount: MinorUnitsOf('total'),
  customer_pays_fees: Type.Boolean(),
});

/**
 * Spec 2.2 (a charge) and the 4.1 preview table in one schema, so either message of
 * CreateChargeResponse passes through and is serialised strictly.
 */
export const ChargeData = Type.Object(
  {
    charge_id: Type.Optional(Type.String()),
    payment_gateway: Type.String({ description: 'naira_gateway, regional_gateway or card_gateway' }),
    status: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String({ description: 'card route: mounts the embedded payment form' })),
    publishable_key: Type.Optional(Type.String({ description: 'card route' })),
    gateway_account_id: Type.Optional(Type.String({ description: 'card route: connected account' })),
    transaction_id: Type.Optional(Type.String()),
    fee_details: Type.Optional(FeeDetails),
    amount_refunded: Type.Optional(
      MinorUnitsOf('amount_refunded', {
        description: 'Beyond the spec: sum of succeeded refunds, charge currency minor units',
      }),
    ),
    refunded: Type.Optional(Type.Boolean({ description: 'Beyond the spec: the whole captured amount was refunded' })),
    amount_disputed: Type.Optional(
      MinorUnitsOf('amount_disputed', {
        description: 'Beyond the spec: what an open or lost dispute holds, charge currency minor units',
      }),
    ),
    preview: Type.Optional(Type.Literal(true)),
    mode: Type.Optional(ModeEnum),
    is_international: Type.Optional(Type.Boolean()),
    business_country: Type.Optional(Type.String()),
    customer_country: Type.Optional(Type.String({ description: 'ISO-2, or Unknown' })),
    customer: Type.Optional(
      Type.Object({
        currency: CurrencyOf('base'),
        base_amount: MinorUnitsOf('base'),
        transaction_fee: MinorUnitsOf('fee'),
        total_charged: MinorUnitsOf('total'),
        pays_fees: Type.Boolean(),
      }),
    ),
    business: Type.Optional(Type.Object({ currency: CurrencyOf('price'), priced_amount: MinorUnitsOf('price') })),
    conversion: Type.Optional(
      Type.Object({
        original_amount: MinorUnitsOf('original'),
        original_currency: CurrencyOf('original'),
        converted_amount: MinorUnitsOf('converted'),
        converted_currency: CurrencyOf('converted'),
        exchange_rate: Type.Number(),
      }),
    ),
  },
  { additionalProperties: false },
);

const SessionStatusEnum = StringEnum(['pending', 'completed', 'expired', 'failed'] as const);
const PaymentTypeEnum = StringEnum(['one_time', 'subscription', 'installment'] as const);

/**
 * An installment session's plan (issue 26): amount and fee_details of the session are its first part's.
 * Only installment sessions have it, so every other session answers exactly the spec's fields.
 */
const SessionInstallments = Type.Optional(
  Type.Object(
    {
      plan_id: Type.String({ description: 'The installment plan the first payment creates' }),
      count: Type.Integer(),
      interval: StringEnum(['weekly', 'monthly'] as const),
      amount: MinorUnitsOf('total', { description: 'What the parts add up to (the amount sent)' }),
      currency: CurrencyOf('total'),
      schedule: Type.Array(
        Type.Object(
          {
            number: Type.Integer({ description: '1 is charged on the checkout page' }),
            amount: MinorUnitsOf('base'),
            transaction_fee: MinorUnitsOf('fee'),
            total_amount: MinorUnitsOf('total', {
              description: 'What is charged: fee included when the customer pays fees',
            }),
            due_at: Type.String({
              format: 'date-time',
              description: 'Counted from the first payment; before it, as if it were paid now',
            }),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false, description: 'Installment sessions only (absent otherwise)' },
  ),
);

/** Spec 2.3 / 4.2: the create response. */
export const SessionCreated = Type.Object(
  {
    session_id: Type.String(),
    gateway_session_id: Type.String(),
    payment_url: Type.String({ description: 'Hosted checkout page to redirect the customer to' }),
    expires_at: Type.String({ format: 'date-time' }),
    amount: MinorUnitsOf('amount', {
      description: 'What the customer pays: fee included when the customer pays fees',
    }),
    currency: CurrencyOf('amount'),
    status: SessionStatusEnum,
    mode: ModeEnum,
    payment_type: PaymentTypeEnum,
    fee_details: Type.Object({
      base_product_price: MinorUnitsOf('base'),
      transaction_fee: MinorUnitsOf('fee'),
      total_amount: MinorUnitsOf('total'),
      customer_pays_fees: Type.Boolean(),
    }),
    installments: SessionInstallments,
  },
  { additionalProperties: false },
);

/** Spec 4.3: the get response. */
export const SessionStatusData = Type.Object(
  {
    session_id: Type.String(),
    status: SessionStatusEnum,
    amount: MinorUnitsOf('amount'),
    currency: CurrencyOf('amount'),
    payment_type: PaymentTypeEnum,
    created_at: Type.String({ format: 'date-time' }),
    completed_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const SessionParams = Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 64 }) });

export const OutcomeParams = Type.Object({
  charge_id: Type.String({ minLength: 1, maxLength: 64 }),
  outcome: StringEnum(['succeed', 'fail'] as const),
});

export const ChargeParams = Type.Object({ charge_id: Type.String({ minLength: 1, maxLength: 64 }) });

/** Refunds (beyond the spec; docs/decisions.md, Refunds). */
export const RefundBody = Type.Object(
  {
    amount: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: LIMITS.amount,
        description: 'Minor units of the charge currency; absent = everything left to refund',
      }),
    ),
    reason: Type.Optional(
      Type.String({
        maxLength: 500,
        description: 'Free text kept on the refund. Sandbox: "sandbox_decline" makes the processor decline it',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RefundData = Type.Object(
  {
    refund_id: Type.String(),
    charge_id: Type.String(),
    amount: MinorUnitsOf('amount'),
    currency: CurrencyOf('amount'),
    status: StringEnum(['pending', 'succeeded', 'failed'] as const),
    reason: Nullable(Type.String()),
    failure_reason: Nullable(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

const ChargeStatusEnum = StringEnum(['initializing', 'pending', 'succeeded', 'failed'] as const);
const DateTime = Type.String({ format: 'date-time', maxLength: 40 });

/** GET /payments/charges query (beyond the spec; docs/decisions.md, Disputes). */
export const ChargeListQuery = Type.Object(
  {
    status: Type.Optional(ChargeStatusEnum),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.reference })),
    from: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'Created at or after' })),
    to: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'Created before' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Cursor()),
  },
  { additionalProperties: false },
);

/**
 * A charge as GET /payments/charges[/{id}] answers it: the spec 2.2 fields, its state and amounts (minor
 * units), its refunds and its dispute (details at GET /disputes/{id}).
 */
export const ChargeDetail = Type.Object(
  {
    charge_id: Type.String(),
    transaction_id: Type.String(),
    payment_gateway: Type.String(),
    status: ChargeStatusEnum,
    reference: Nullable(Type.String()),
    amount: MinorUnitsOf('amount', { description: 'What the customer pays before any fee they pay' }),
    currency: CurrencyOf('amount'),
    total_amount: MinorUnitsOf('total', { description: "The merchant's priced amount" }),
    total_currency: CurrencyOf('total'),
    fee_details: FeeDetails,
    amount_refunded: MinorUnitsOf('amount_refunded'),
    refunded: Type.Boolean(),
    amount_disputed: MinorUnitsOf('amount_disputed', {
      description: 'What an open or lost dispute holds (not refundable); 0 after a won dispute',
    }),
    customer_email: Type.String(),
    description: Type.String(),
    sub_merchant_id: Nullable(Type.Integer()),
    is_live: Type.Boolean(),
    failure_reason: Nullable(Type.String()),
    client_secret: Nullable(Type.String()),
    publishable_key: Nullable(Type.String()),
    gateway_account_id: Nullable(Type.String()),
    gateway_reference: Nullable(
      Type.String({
        description:
          "The processor's id of the payment (live cards: the Stripe PaymentIntent), null until the processor answers",
      }),
    ),
    created_at: DateTime,
    completed_at: Nullable(DateTime),
    refunds: Type.Array(RefundData),
    dispute: Nullable(
      Type.Object({
        dispute_id: Type.String(),
        status: StringEnum(['open', 'won', 'lost'] as const),
        amount: MinorUnitsOf('amount'),
        currency: CurrencyOf('amount'),
      }),
    ),
  },
  { additionalProperties: false },
);

export const ChargeList = Type.Object({
  charges: Type.Array(ChargeDetail),
  has_more: Type.Boolean(),
  next_cursor: Nullable(Type.String()),
});

export const ChargeRefundsData = Type.Object(
  {
    charge_id: Type.String(),
    currency: CurrencyOf('amount_captured'),
    amount_captured: MinorUnitsOf('amount_captured', {
      description: 'What the customer paid: the most that can be refunded',
    }),
    amount_refunded: MinorUnitsOf('amount_refunded'),
    refunded: Type.Boolean(),
    refunds: Type.Array(RefundData),
  },
  { additionalProperties: false },
);
