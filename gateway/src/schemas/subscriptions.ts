import { Type } from '@sinclair/typebox';
import { Amount, LIMITS, ModeEnum, Nullable, StringEnum } from './common';
import { CurrencyOf, MinorUnitsOf } from './money';

const STATUSES = ['pending', 'active', 'due', 'cancelled', 'paused'] as const;
const FREQUENCIES = ['weekly', 'monthly', 'quarterly', 'biannually', 'yearly'] as const;
const DateTime = Type.String({ format: 'date-time' });

/** Spec 4.5 query. */
export const SubscriptionQuery = Type.Object({
  status: Type.Optional(StringEnum(STATUSES)),
  product_id: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.amount })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  offset: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 10_000,
      default: 0,
      description: 'At most 10,000 (narrow the list with status or product_id to go deeper)',
    }),
  ),
  sort_by: Type.Optional(
    StringEnum(['created_at', 'next_payment', 'actual_price', 'payment_status'] as const, { default: 'created_at' }),
  ),
  sort_order: Type.Optional(StringEnum(['ASC', 'DESC'] as const, { default: 'DESC' })),
});

export const SubscriptionParams = Type.Object({ subscription_id: Type.String({ minLength: 1, maxLength: 64 }) });

export const CancelQuery = Type.Object({
  at_period_end: Type.Boolean({
    default: false,
    description: 'Beyond the spec: keep the paid period and cancel when it ends (no further charge)',
  }),
});

/** Spec 2.5 (id … created_at) plus the fields it leaves "not shown" (docs/decisions.md, Subscriptions). */
export const SubscriptionData = Type.Object({
  id: Type.String(),
  product_id: Nullable(Type.Integer(), { description: 'Null when the checkout named a product instead of an id' }),
  product_name: Type.String(),
  customer_email: Type.String(),
  amount: MinorUnitsOf('amount', { description: 'Recurring price in the smallest unit of currency' }),
  currency: CurrencyOf('amount'),
  frequency: StringEnum(FREQUENCIES),
  status: StringEnum(STATUSES),
  payment_status: StringEnum(['none', 'pending', 'paid', 'failed'] as const),
  next_payment_date: Nullable(DateTime, { description: 'Next charge attempt (renewal or retry); null when none' }),
  created_at: DateTime,
  cancelled_at: Nullable(DateTime),
  current_period: Nullable(Type.Object({ index: Type.Integer(), start: DateTime, end: DateTime })),
  trial: Nullable(Type.Object({ trial_start: DateTime, trial_end: DateTime })),
  access_until: Nullable(DateTime),
  cancel_at_period_end: Type.Boolean(),
  cancel_at: Nullable(DateTime),
  paused_at: Nullable(DateTime),
  pause_reason: Nullable(StringEnum(['merchant', 'hard_decline', 'retries_exhausted'] as const)),
  next_retry_at: Nullable(DateTime),
  decline_reason: Nullable(Type.String()),
  attempts_left: Type.Integer(),
  failed_attempts: Type.Integer(),
  last_payment_at: Nullable(DateTime),
  checkout_session_id: Nullable(Type.String()),
  mode: ModeEnum,
  clock: Type.String({
    format: 'date-time',
    description: "The subscription's clock: the real time, or where the sandbox advance helper moved it",
  }),
});

/** Spec 4.5 response data. */
export const SubscriptionList = Type.Object({
  subscriptions: Type.Array(SubscriptionData),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
});

/** Spec 4.6 response data (id, status, cancelled_at) plus the period-end cancellation fields. */
export const CancelData = Type.Object({
  id: Type.String(),
  status: StringEnum(STATUSES),
  cancelled_at: Nullable(DateTime, { description: 'Null only while a period-end cancellation waits' }),
  cancel_at_period_end: Type.Boolean(),
  cancel_at: Nullable(DateTime),
});

export const AdvanceBody = Type.Object(
  {
    to: Type.String({
      format: 'date-time',
      minLength: 1,
      maxLength: 40,
      description:
        'ISO 8601 date-time with a zone, not before the subscription clock, at most ten years and 24 renewals ahead (400 CLOCK_ADVANCE_TOO_FAR: advance in steps)',
    }),
  },
  { additionalProperties: false },
);

export const SandboxSubscriptionBody = Type.Object(
  {
    amount: Amount({ minimum: 1 }),
    currency: Type.String({ minLength: 3, maxLength: LIMITS.currency }),
    product_id: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.amount })),
    product_name: Type.Optional(Type.String({ maxLength: LIMITS.name })),
    customer: Type.Object({
      email: Type.String({ minLength: 3, maxLength: LIMITS.email }),
      first_name: Type.Optional(Type.String({ maxLength: LIMITS.name })),
      last_name: Type.Optional(Type.String({ maxLength: LIMITS.name })),
    }),
    subscription_frequency_key: StringEnum(FREQUENCIES),
    card_number: Type.String({
      minLength: 12,
      maxLength: 32,
      description: 'A sandbox test card that pays (4242 4242 4242 4242, 5555 5555 5555 4444, 4000 0000 0000 0341)',
    }),
    trial_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 730 })),
  },
  { additionalProperties: false },
);
