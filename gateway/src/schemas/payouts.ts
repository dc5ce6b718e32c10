import { Type } from '@sinclair/typebox';
import { AT_LEAST_3_TRIMMED, Nullable, StringEnum } from './common';
import { CurrencyOf, MinorUnitsOf } from './money';

/** Sub-merchant payout initiation (not shown in the spec; shapes settled by the marketplace money issue). */
export const InitiatePayoutBody = Type.Object({
  amount: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  currency: Type.String({ minLength: 3, maxLength: 3 }),
  // At most 100: the reference is a path parameter of approve, reject and settlement (Fastify's maxParamLength).
  reference: Type.String({ minLength: 1, maxLength: 100 }),
  payout_method: Type.Optional(Type.String({ maxLength: 50 })),
});

/** Spec 4.10 dashboard payout endpoints. */
export const PayoutParams = Type.Object({
  merchantId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  reference: Type.String({ minLength: 1, maxLength: 100 }),
});

export const RejectBody = Type.Object({
  reason: Type.String({
    minLength: 3,
    maxLength: 500,
    pattern: AT_LEAST_3_TRIMMED,
    description: '3 to 500 characters once surrounding spaces are trimmed',
  }),
});

/** Spec 2.9 wallet balance entry (minor units), plus what a payout may still reserve. */
export const BalanceEntry = Type.Object({
  currency: CurrencyOf('balance'),
  balance: MinorUnitsOf('balance', { description: 'total_credits - total_debits, minor units' }),
  formatted_balance: Type.String({ description: 'Intl.NumberFormat in the currency, e.g. "₦1,234.50", "¥1,500"' }),
  total_credits: MinorUnitsOf('total_credits'),
  total_debits: MinorUnitsOf('total_debits'),
  transaction_count: Type.Integer(),
  available: MinorUnitsOf('available', { description: 'Beyond the spec: balance minus what staged payouts hold' }),
  reserved: MinorUnitsOf('reserved', { description: 'Beyond the spec: held by pending and approved payouts' }),
});

/** Spec 4.9 GET /marketplace/merchants/{merchantId}/balance. */
export const MerchantBalance = Type.Object({ merchant_id: Type.Integer(), balances: Type.Array(BalanceEntry) });

/** GET /balance (beyond the spec): the calling merchant's own wallets in the key's mode. */
export const OwnBalance = Type.Object({ balances: Type.Array(BalanceEntry) });

const Timestamp = (description?: string) => Nullable(Type.String({ format: 'date-time', description }));

/** Spec 2.10 staged payout request (and its withdrawal once approved), with settlement fields. */
export const PayoutRequest = Type.Object({
  payout_request_id: Type.Integer(),
  withdrawal_id: Nullable(Type.Integer(), { description: 'Set on approval' }),
  merchant_id: Type.Integer(),
  reference: Type.String(),
  amount: MinorUnitsOf('amount', { description: 'Minor units' }),
  currency: CurrencyOf('amount'),
  request_status: StringEnum(['pending', 'approved', 'rejected'] as const),
  withdrawal_status: Nullable(StringEnum(['payout_pending', 'paid', 'failed'] as const)),
  payment_gateway: Type.String(),
  payout_method: Type.String(),
  destination: Type.Optional(
    Type.Object(
      {
        kind: StringEnum(['bank_account', 'connected_account'] as const),
        bank_name: Nullable(Type.String()),
        institution_id: Nullable(Type.String()),
        account_number_masked: Nullable(Type.String()),
        account_name: Nullable(Type.String()),
        gateway_account_id: Nullable(Type.String()),
        fingerprint: Nullable(
          Type.String({ description: "changes whenever the payout account's destination does (bank, number, holder)" }),
        ),
      },
      {
        description:
          'Where the payout pays, as the payout account was when it was requested; approval and payment are refused (409) once it changed or KYC is no longer approved. Absent on requests made before destinations were recorded.',
      },
    ),
  ),
  approved_at: Timestamp(),
  rejected_at: Timestamp(),
  rejection_reason: Nullable(Type.String()),
  paid_at: Timestamp(),
  failed_at: Timestamp(),
  failure_reason: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
});

/** Spec 4.10 approve response. */
export const ApprovedPayout = Type.Object({
  payout_request_id: Type.Integer(),
  withdrawal_id: Type.Integer(),
  merchant_id: Type.Integer(),
  reference: Type.String(),
  amount: MinorUnitsOf('amount', { description: 'Minor units' }),
  currency: CurrencyOf('amount'),
  request_status: Type.Literal('approved'),
  withdrawal_status: Type.Literal('payout_pending'),
  payment_gateway: Type.String(),
  payout_method: Type.String(),
  approved_at: Type.String({ format: 'date-time' }),
});

/** Spec 4.10 reject response. */
export const RejectedPayout = Type.Object({
  payout_request_id: Type.Integer(),
  merchant_id: Type.Integer(),
  reference: Type.String(),
  status: Type.Literal('rejected'),
  rejection_reason: Type.String(),
  rejected_at: Type.String({ format: 'date-time' }),
});

/** Settlement of a withdrawal (sandbox helper, platform admin). */
export const SettleParams = Type.Object({
  reference: Type.String({ minLength: 1, maxLength: 100 }),
  outcome: StringEnum(['paid', 'failed'] as const),
});
export const AdminSettleParams = Type.Object({
  merchantId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  reference: Type.String({ minLength: 1, maxLength: 100 }),
  outcome: StringEnum(['paid', 'failed'] as const),
});
