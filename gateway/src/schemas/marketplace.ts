import { Type } from '@sinclair/typebox';
import { KYC_STATUSES } from '@ppay/kernel';
import { ModeEnum, Nullable, Pagination, StringEnum } from './common';
import { CurrencyOf, MajorUnitsOf } from './money';

/** Spec 2.6 list item, plus how its commission_rate was resolved. */
export const Relationship = Type.Object({
  id: Type.Integer({ description: 'relationship ID' }),
  marketplace_id: Type.Integer({ description: "operator's business ID" }),
  merchant_id: Type.Integer({ description: "sub-merchant's business ID" }),
  commission_rate: Type.String({ description: 'effective decimal rate, e.g. 0.0800 means 8%' }),
  commission_source: StringEnum(['merchant', 'marketplace_default', 'none'] as const, {
    description: 'merchant: set by update commission; marketplace_default: the setup default; none: 0',
  }),
  status: StringEnum(['active', 'suspended'] as const, {
    description: 'pending invitations are not relationships: see GET /marketplace/invitations',
  }),
  invite_token: Nullable(Type.String({ description: 'always null: invitations live apart' })),
  invited_at: Nullable(Type.String({ description: 'when the accepted invitation was sent; null when created' })),
  joined_at: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
  merchant: Type.Object({
    id: Type.Integer(),
    educator_email: Type.String({ description: 'merchant e-mail address' }),
  }),
  kyc_status: StringEnum(KYC_STATUSES, { description: "the sub-merchant's KYC status in the mode of the calling key" }),
  payouts_enabled: Type.Boolean({
    description: 'approved KYC and a payout account in the settlement currency, in the mode of the calling key',
  }),
});

export const RelationshipList = Type.Object({ merchants: Type.Array(Relationship), pagination: Pagination });

const INVITATION_STATUSES = ['pending', 'accepted', 'declined', 'cancelled', 'expired'] as const;

/**
 * An invitation of an existing business (by merchant_id). Never the business's e-mail; the answer to
 * an invitation has this shape and status whatever the merchant_id (no enumeration).
 */
export const Invitation = Type.Object({
  invite_token: Type.String({ description: 'identifies the invitation (accept, decline, cancel)' }),
  marketplace_id: Type.Integer({ description: "the inviting operator's business ID" }),
  marketplace_name: Type.String(),
  merchant_id: Nullable(
    Type.Integer({
      description:
        'the invited business ID as the operator sent it; null to the operator when it named the business by an ' +
        'e-mail (create-or-link with a registered e-mail), until the business accepts',
    }),
  ),
  mode: ModeEnum,
  commission_rate: Nullable(
    Type.String({ description: 'proposed decimal rate, e.g. 0.0800; null = the marketplace default' }),
  ),
  status: StringEnum(INVITATION_STATUSES, { description: 'pending for 7 days, then expired' }),
  invited_at: Type.String(),
  expires_at: Type.String(),
  responded_at: Nullable(Type.String({ description: 'when accepted, declined, cancelled or expired' })),
});

export const InvitationList = Type.Object({ invitations: Type.Array(Invitation), pagination: Pagination });

/** Page numbers stop where skipping would be absurd (and stay inside the proto's int32). */
const Page = () => Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 }));
const Limit = () => Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 }));

export const InvitationListQuery = Type.Object({
  direction: Type.Optional(
    StringEnum(['received', 'sent'] as const, {
      default: 'received',
      description: 'received: invitations to the caller; sent: by the caller (marketplace operators)',
    }),
  ),
  status: Type.Optional(StringEnum(INVITATION_STATUSES)),
  page: Page(),
  limit: Limit(),
});

export const Marketplace = Type.Object({
  marketplace_id: Type.String({ description: "the operator's business ID" }),
  status: StringEnum(['active'] as const),
  marketplace_name: Type.String(),
  default_commission_rate: Nullable(Type.String({ description: 'decimal, e.g. 0.0800; null = no default (0)' })),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const SetupBody = Type.Object(
  {
    marketplace_name: Type.String({ minLength: 1, maxLength: 200 }),
    default_commission_rate: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 100,
        description: 'Percent, at most 2 decimals (8 = 8%); omitted on a repeated setup keeps the current default',
      }),
    ),
  },
  { additionalProperties: false },
);

export const LinkBody = Type.Object(
  {
    merchant_id: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Invite an existing business: answers an invitation, which it accepts with its own key',
      }),
    ),
    email: Type.Optional(Type.String({ maxLength: 254, description: 'New business: e-mail (required)' })),
    business_name: Type.Optional(Type.String({ maxLength: 200, description: 'New business: display name' })),
    country: Type.Optional(Type.String({ minLength: 2, maxLength: 2, description: 'New business: ISO-2 (required)' })),
    baseline_currency: Type.Optional(
      Type.String({ minLength: 3, maxLength: 3, description: 'New business: ISO 4217 (required)' }),
    ),
    commission_rate: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 100,
        description: 'Percent, at most 2 decimals; omitted = marketplace default',
      }),
    ),
  },
  { additionalProperties: false },
);

/** Accept, decline (the invited business) or cancel (the operator) an invitation. */
export const InvitationTokenBody = Type.Object(
  { invite_token: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);

export const ListQuery = Type.Object({
  status: Type.Optional(StringEnum(['active', 'suspended'] as const, { default: 'active' })),
  page: Page(),
  limit: Limit(),
});

export const CommissionBody = Type.Object(
  {
    commission_rate: Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()], {
      description: 'Percent, at most 2 decimals (8 = 8%); null falls back to the marketplace default',
    }),
  },
  { additionalProperties: false },
);

export const Removed = Type.Object({ success: Type.Literal(true), message: Type.String() });

/** Spec 4.9 delete merchant `data`; the envelope's `message` says what happened (the kept balance when skipped). */
export const DeletedMerchant = Type.Object({
  gateway_skipped: Type.Boolean({
    description: 'true when the connected gateway account still held money and was kept (everything else is deleted)',
  }),
  gateway_balance: Nullable(
    Type.Object({
      amount: MajorUnitsOf('amount', { description: 'available + pending, in standard units (not minor units)' }),
      currency: CurrencyOf('amount'),
    }),
    { description: 'null when the merchant has no connected gateway account' },
  ),
});
