import { Type } from '@sinclair/typebox';
import { StringEnum } from './common';

/** Spec 4.5 query. */
export const SubscriptionQuery = Type.Object({
  status: Type.Optional(StringEnum(['pending', 'active', 'due', 'cancelled', 'paused'] as const)),
  product_id: Type.Optional(Type.Integer({ minimum: 1 })),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  sort_by: StringEnum(['created_at', 'next_payment', 'actual_price', 'payment_status'] as const, {
    default: 'created_at',
  }),
  sort_order: StringEnum(['ASC', 'DESC'] as const, { default: 'DESC' }),
});

export const SubscriptionParams = Type.Object({ subscription_id: Type.String({ minLength: 1, maxLength: 64 }) });
