import { Type } from '@sinclair/typebox';

/** Sub-merchant payout initiation (not shown in the spec; shapes settled by the marketplace money issue). */
export const InitiatePayoutBody = Type.Object({
  amount: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  currency: Type.String({ minLength: 3, maxLength: 3 }),
  reference: Type.String({ minLength: 1, maxLength: 255 }),
  payout_method: Type.Optional(Type.String({ maxLength: 50 })),
});

/** Spec 4.10 dashboard payout endpoints. */
export const PayoutParams = Type.Object({
  merchantId: Type.Integer({ minimum: 1 }),
  reference: Type.String({ minLength: 1, maxLength: 255 }),
});

export const RejectBody = Type.Object({ reason: Type.String({ minLength: 3, maxLength: 500 }) });
