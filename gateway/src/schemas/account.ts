import { Type } from '@sinclair/typebox';
import { ModeEnum, Nullable } from './common';

/** Spec 4.7 plus the additive mode, operator flag and fee setting (docs/decisions.md 11, 31). */
export const Account = Type.Object({
  merchant_id: Type.Integer(),
  baseline_currency: Type.String(),
  mode: ModeEnum,
  is_marketplace_operator: Type.Boolean(),
  customer_pays_fees: Type.Boolean({ description: 'Business setting, see GET /account/settings' }),
});

export const AccountSettings = Type.Object({
  merchant_id: Type.Integer(),
  customer_pays_fees: Type.Boolean({
    description: 'true: the transaction fee is added to what the customer pays; false: the merchant absorbs it',
  }),
  updated_at: Nullable(Type.String(), { description: 'null until the first change' }),
});

export const AccountSettingsPatch = Type.Object(
  { customer_pays_fees: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
