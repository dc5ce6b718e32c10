import { Type } from '@sinclair/typebox';
import { Cursor, LIMITS, ModeEnum, Nullable, StringEnum } from './common';
import { CurrencyOf, MinorUnitsOf } from './money';

/** Installment plans (issue 26): a total paid in parts, the first on the hosted checkout page. */

const PLAN_STATUSES = ['active', 'completed', 'defaulted', 'cancelled'] as const;
const PART_STATUSES = ['scheduled', 'pending', 'retrying', 'paid', 'failed', 'cancelled'] as const;
const DateTime = (description?: string) => Type.String({ format: 'date-time', maxLength: 40, description });

export const PlanParams = Type.Object({
  plan_id: Type.String({ minLength: 1, maxLength: 64, description: '`ip_` + 24 base62 characters' }),
});

export const PlanListQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(PLAN_STATUSES)),
    customer_email: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.email })),
    from: Type.Optional(DateTime('Plans created at or after this time')),
    to: Type.Optional(DateTime('Plans created before this time')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Cursor()),
  },
  { additionalProperties: false },
);

const Part = Type.Object(
  {
    number: Type.Integer({ description: '1 is the part paid on the checkout page' }),
    amount: MinorUnitsOf('amount', { description: 'Smallest unit of currency, before any fee the customer pays' }),
    currency: CurrencyOf('amount'),
    due_at: DateTime(),
    status: StringEnum(PART_STATUSES),
    charge_id: Nullable(Type.String(), { description: "The part's latest charge (the one that paid it once paid)" }),
    paid_at: Nullable(DateTime()),
    failed_attempts: Type.Integer(),
    next_retry_at: Nullable(DateTime()),
    decline_reason: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

export const PlanData = Type.Object(
  {
    id: Type.String(),
    status: StringEnum(PLAN_STATUSES),
    product_id: Nullable(Type.Integer(), { description: 'Null when the checkout named a product instead of an id' }),
    product_name: Type.String(),
    product_type: Type.String(),
    customer_email: Type.String(),
    amount: MinorUnitsOf('total', { description: 'What the parts add up to (customer currency, before fees)' }),
    currency: CurrencyOf('total'),
    amount_paid: MinorUnitsOf('amount_paid'),
    amount_remaining: MinorUnitsOf('amount_remaining'),
    count: Type.Integer(),
    interval: StringEnum(['weekly', 'monthly'] as const),
    parts: Type.Array(Part),
    next_payment_date: Nullable(
      DateTime('Next charge attempt (a part or its retry); null once nothing will be charged'),
    ),
    card: Type.Object({ brand: Type.String(), last4: Type.String() }, { additionalProperties: false }),
    checkout_session_id: Type.String(),
    created_at: DateTime(),
    completed_at: Nullable(DateTime()),
    cancelled_at: Nullable(DateTime()),
    defaulted_at: Nullable(DateTime()),
    default_reason: Nullable(StringEnum(['retries_exhausted', 'hard_decline'] as const)),
    mode: ModeEnum,
    clock: DateTime("The plan's clock: the real time, or where the sandbox advance helper moved it"),
  },
  { additionalProperties: false },
);

export const PlanList = Type.Object({
  installment_plans: Type.Array(PlanData),
  has_more: Type.Boolean(),
  next_cursor: Nullable(Type.String()),
});

export const PlanAdvanceBody = Type.Object(
  {
    to: Type.String({
      format: 'date-time',
      minLength: 1,
      maxLength: 40,
      description: "ISO 8601 date-time with a zone, not before the plan's clock, at most ten years ahead",
    }),
  },
  { additionalProperties: false },
);
