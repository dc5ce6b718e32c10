import { Type } from '@sinclair/typebox';

/** Spec 4.9 payout banks query. */
export const BanksQuery = Type.Object({ currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3 })) });

/** Spec 4.9 payout setup and update (shapes settled by the onboarding issue). */
export const PayoutBody = Type.Object({
  settlement_bank: Type.Optional(Type.String({ maxLength: 200 })),
  account_number: Type.Optional(Type.String({ maxLength: 34 })),
  account_name: Type.Optional(Type.String({ maxLength: 200 })),
  callback_url: Type.Optional(Type.String({ maxLength: 2048 })),
});

/** Spec 4.9 KYC submission: structured or flat legacy body (validated by the kyc service). */
export const KycBody = Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 40 });
