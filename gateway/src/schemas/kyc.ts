import { Type, type TSchema } from '@sinclair/typebox';
import { KYC_STATUSES } from '@ppay/kernel';
import { LIMITS, MAX_ID, Nullable, Pagination, StringEnum } from './common';

/**
 * KYC, payout banks and payout accounts (spec 2.7, 2.8, 3.3, 4.9, 7.2–7.4). Request bodies list every
 * field the kyc service accepts with its maximum length and nothing else (unknown fields are 400);
 * which fields are required depends on the route and the country, so the kyc service decides that and
 * answers the spec 7.2 / 7.4 messages in their order.
 */

const Text = (maxLength: number, description?: string) =>
  Type.Optional(Type.String({ maxLength, ...(description ? { description } : {}) }));

const ACCOUNT_TYPES = ['individual', 'registered_business'] as const;
const CONNECTED_CURRENCIES = ['USD', 'EUR', 'GBP', 'CAD', 'AUD'] as const;

const Country = (description = 'ISO 3166-1 alpha-2 code (or an English country name)') =>
  Text(LIMITS.country, description);
const Url = (description: string) => Text(LIMITS.url, description);

const AddressInput = Type.Object(
  {
    street: Text(LIMITS.name),
    city: Text(100),
    state: Text(100),
    postal_code: Text(20),
    country: Country(),
  },
  { additionalProperties: false },
);

const OwnerFields = {
  first_name: Text(LIMITS.name),
  last_name: Text(LIMITS.name),
  date_of_birth: Text(32, 'YYYY-MM-DD; the owner must be 18 or older'),
  phone_number: Text(32, 'E.164, or a national mobile number of the ID country'),
  email: Text(LIMITS.email),
  id_type: Text(
    50,
    'NG: nin, bvn, passport, drivers_license, voters_card; GH: ghana_card, passport, drivers_license, voters_id; ' +
      'KE: national_id, passport, alien_id, drivers_license; ZA: sa_id, passport, drivers_license',
  ),
  id_number: Text(50, 'Stored encrypted, shown masked'),
  id_document_url: Url('Absolute https URL'),
  selfie_url: Url('Absolute https URL'),
};

const OwnerInput = Type.Object(
  { ...OwnerFields, address: Type.Optional(AddressInput) },
  { additionalProperties: false, description: 'Required on the in-house route (NG, GH, ZA, KE)' },
);

const BusinessInput = Type.Object(
  {
    registered_name: Text(LIMITS.name, 'Required'),
    legal_name: Text(LIMITS.name, 'Alias of registered_name'),
    registration_number: Text(50, 'Required; company registration number (contains digits)'),
    tax_id: Text(50),
    address: Type.Optional(AddressInput),
  },
  { additionalProperties: false, description: 'Required when account_type is registered_business' },
);

const BankAccountInput = Type.Object(
  {
    country: Country('Optional; must be the bank’s country'),
    bank_name: Text(LIMITS.name, 'A name from GET /marketplace/payout/banks (or send institution_id)'),
    institution_id: Text(36, 'UUID from GET /marketplace/payout/banks'),
    account_number: Text(64, 'NUBAN (10 digits) for Nigerian banks, E.164 for mobile money; stored encrypted'),
    account_name: Text(LIMITS.name),
  },
  { additionalProperties: false },
);

/**
 * Spec 4.9 KYC submission: the structured body (recommended), the flat legacy body (the same fields at
 * the top level; docs/decisions.md, KYC) or the connected-account body (every country but NG, GH, ZA, KE).
 */
export const KycBody = Type.Object(
  {
    id_country: Country('Country of the identity document; decides the route'),
    country: Country('Alias of id_country; the connected-account route’s country'),
    account_type: Type.Optional(StringEnum(ACCOUNT_TYPES, { description: 'Required on the in-house route' })),
    business_type: Type.Optional(
      StringEnum(ACCOUNT_TYPES, { description: 'Connected-account route (default individual)' }),
    ),
    owner: Type.Optional(OwnerInput),
    business: Type.Optional(BusinessInput),
    bank_account: Type.Optional(BankAccountInput),
    preferred_currency: Type.Optional(
      StringEnum(CONNECTED_CURRENCIES, {
        description:
          'Connected-account route; default from the country (US USD, GB GBP, CA CAD, AU AUD, EU EUR, else USD)',
      }),
    ),
    return_url: Url('Connected-account route: where the hosted onboarding page returns (https; http for localhost)'),
    refresh_url: Url('Connected-account route: where an expired or used onboarding link sends the merchant'),
    // Flat (legacy) body.
    ...OwnerFields,
    street: Text(LIMITS.name, 'Flat body: owner address'),
    city: Text(100, 'Flat body: owner address'),
    state: Text(100, 'Flat body: owner address'),
    postal_code: Text(20, 'Flat body: owner address'),
    business_name: Text(LIMITS.name, 'Flat body: business.registered_name'),
    registration_number: Text(50, 'Flat body: business.registration_number'),
    tax_id: Text(50, 'Flat body: business.tax_id'),
    bank_country: Country('Flat body: bank_account.country'),
    bank_name: Text(LIMITS.name, 'Flat body: bank_account.bank_name'),
    institution_id: Text(36, 'Flat body: bank_account.institution_id'),
    account_number: Text(64, 'Flat body: bank_account.account_number'),
    account_name: Text(LIMITS.name, 'Flat body: bank_account.account_name'),
  },
  { additionalProperties: false },
);

const StatusEnum = StringEnum(KYC_STATUSES);
const AccountTypeEnum = StringEnum(ACCOUNT_TYPES);

/** Spec 4.9 in-house response `data`, exactly. */
export const InHouseKyc = Type.Object(
  {
    provider: StringEnum(['service'] as const),
    id: Type.Integer({ description: 'submission ID' }),
    status: StatusEnum,
    business_type: AccountTypeEnum,
    legal_name: Type.String(),
    id_country: Type.String(),
    bank_name: Nullable(Type.String()),
    bank_account_number: Nullable(Type.String({ description: 'masked: ******6789' })),
    bank_account_name: Nullable(Type.String()),
    settlement_currency: Type.String({ description: 'locked for payouts, derived from the bank country' }),
    country_mismatch: Type.Boolean({ description: 'id_country differs from the bank country: manual review' }),
    submitted_at: Type.String(),
    reviewed_at: Nullable(Type.String()),
    rejection_reason: Nullable(Type.String()),
  },
  { title: 'In-house KYC submission' },
);

/** Spec 4.9 connected-account response `data`. */
export const ConnectedKyc = Type.Object(
  {
    provider: StringEnum(['gateway'] as const),
    submission_id: Type.Integer(),
    gateway_account_id: Type.String(),
    onboarding_url: Type.String({ description: 'Redirect the merchant here (single use, expires)' }),
    client_secret: Type.String({ description: 'For embedded onboarding; shown once' }),
    publishable_key: Type.String({
      description: "The gateway platform's publishable key, which embedded onboarding takes with client_secret",
    }),
    settlement_currency: StringEnum(CONNECTED_CURRENCIES),
    gateway_region: StringEnum(['US', 'EU'] as const),
  },
  { title: 'Connected-account onboarding' },
);

export const KycSubmitData = Type.Union([InHouseKyc, ConnectedKyc]);

/** GET …/kyc and the sandbox helpers: spec 2.7 plus what the operator needs to act on it. */
export const KycStatusData = Type.Object({
  merchant_id: Type.Integer(),
  provider: Nullable(StringEnum(['service', 'gateway'] as const), { description: 'null while not_started' }),
  id: Nullable(Type.Integer(), { description: 'submission ID; null while not_started' }),
  status: StatusEnum,
  business_type: Nullable(AccountTypeEnum),
  legal_name: Nullable(Type.String()),
  id_country: Nullable(Type.String()),
  bank_name: Nullable(Type.String()),
  bank_account_number: Nullable(Type.String({ description: 'masked' })),
  bank_account_name: Nullable(Type.String()),
  bank_sort_code: Nullable(Type.String()),
  settlement_currency: Nullable(Type.String()),
  country_mismatch: Type.Boolean(),
  submitted_at: Nullable(Type.String()),
  reviewed_at: Nullable(Type.String()),
  rejection_reason: Nullable(Type.String({ description: 'reason of the latest rejection or revocation' })),
  gateway_account_id: Nullable(Type.String()),
  gateway_region: Nullable(StringEnum(['US', 'EU'] as const)),
  additional_info_request: Nullable(Type.String({ description: 'what the reviewer asked for' })),
  payouts_enabled: Type.Boolean({ description: 'approved KYC and a payout account in the settlement currency' }),
});

export const KycParams = Type.Object({
  submission_id: Type.Integer({ minimum: 1, maximum: MAX_ID }),
  action: StringEnum(
    ['approve', 'reject', 'request_info', 'revoke', 'approve_payout_change', 'reject_payout_change'] as const,
    { description: 'approve_payout_change / reject_payout_change decide a payout account change waiting for review' },
  ),
});

export const DecisionBody = Type.Object(
  {
    reason: Type.Optional(Type.String({ minLength: 3, maxLength: 500, description: 'reject and revoke: required' })),
    message: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'request_info: what the merchant must provide' }),
    ),
  },
  { additionalProperties: false },
);

/** Spec 4.9 payout banks query. */
/** The currencies of the payout banks directory (spec 7.3), as kyc answers an other one. */
export const PAYOUT_BANK_CURRENCIES = ['GHS', 'KES', 'NGN', 'ZAR'] as const;
const anyCase = (code: string) => [...code].map((c) => `[${c}${c.toLowerCase()}]`).join('');

export const BanksQuery = Type.Object({
  currency: Type.Optional(
    Type.String({
      maxLength: LIMITS.currency,
      // Any case, as the directory reads it; empty is the same as omitted.
      pattern: `^(?:${PAYOUT_BANK_CURRENCIES.map(anyCase).join('|')})?$`,
      description: 'NGN, GHS, KES or ZAR (any case); omitted or empty: every institution',
    }),
  ),
});

export const PayoutBank = Type.Object({
  institution_id: Type.String({ format: 'uuid', description: 'stable; may be sent instead of the name' }),
  name: Type.String({ description: 'send verbatim as settlement_bank or bank_name' }),
  currency: Type.String(),
  country_iso_code: Type.String(),
  account_number_type: StringEnum(['bank_account_number', 'phone_number'] as const, {
    description: 'label the input Account Number or Phone Number',
  }),
});

/** Spec 4.9 payout setup and update. */
export const PayoutBody = Type.Object(
  {
    settlement_bank: Text(LIMITS.name, 'NG, GH, ZA, KE merchants: a name from GET /marketplace/payout/banks'),
    institution_id: Text(36, 'Instead of settlement_bank: the institution’s UUID'),
    account_number: Text(64, 'NUBAN for Nigerian banks, E.164 for mobile money; stored encrypted'),
    account_name: Text(LIMITS.name),
    callback_url: Url('Other countries: where the onboarding page returns (https; http for localhost)'),
  },
  { additionalProperties: false },
);

export const BankPayout = Type.Object(
  {
    merchant_id: Type.Integer(),
    bank_name: Type.String(),
    bank_account_number: Type.String({ description: 'masked' }),
    bank_account_name: Type.String(),
    baseline_currency: Type.String(),
    country: Type.String(),
    settlement_currency: Type.String(),
    institution_id: Type.String(),
    account_number_type: StringEnum(['bank_account_number', 'phone_number'] as const),
    change_status: StringEnum(['applied', 'pending_review'] as const, {
      description:
        'pending_review: the holder name does not match the KYC legal name; payouts keep the current account until a reviewer approves it',
    }),
  },
  { title: 'Bank payout (NG, GH, ZA, KE)' },
);

export const ConnectedPayout = Type.Object(
  {
    merchant_id: Type.Integer(),
    baseline_currency: Type.String(),
    country: Type.String(),
    settlement_currency: Type.String(),
    client_secret: Type.String({ description: 'shown once' }),
    publishable_key: Type.String({ description: "The gateway platform's publishable key, used with client_secret" }),
    onboarding_url: Type.String({ description: 'the merchant changes its payout details there' }),
  },
  { title: 'Connected-account payout (other countries)' },
);

export const PayoutData = Type.Union([BankPayout, ConnectedPayout]);

// ---- platform admin review queue ----------------------------------------------------------------

/** Optional with defaults (filled in by validation), so the OpenAPI document does not call them required. */
export const ReviewQuery = Type.Object({
  status: Type.Optional(
    StringEnum(
      KYC_STATUSES.filter((s) => s !== 'not_started'),
      { default: 'pending_review' },
    ),
  ),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  payout_change: Type.Optional(
    StringEnum(['pending'] as const, {
      description: 'pending: instead of a status, the cases whose payout account change waits for review',
    }),
  ),
});

export const ReviewParams = Type.Object({ submission_id: Type.Integer({ minimum: 1, maximum: MAX_ID }) });

const NameEnquiry = Type.Object({
  provider: Nullable(Type.String({ description: 'the verification provider asked; null when none was' })),
  outcome: StringEnum(['found', 'not_found', 'unavailable', 'unconfigured', 'not_asked'] as const),
  account_name: Nullable(Type.String({ description: 'the holder as the bank has it (found only)' })),
});

const HistoryEntry = Type.Object({
  action: Type.String(),
  from_status: StatusEnum,
  to_status: StatusEnum,
  actor: StringEnum(['operator', 'auto', 'admin', 'sandbox', 'gateway'] as const),
  actor_id: Nullable(Type.String()),
  reason: Nullable(Type.String()),
  at: Type.String(),
});

export const KycReview = Type.Object({
  id: Type.Integer(),
  merchant_id: Type.Integer(),
  marketplace_id: Type.Integer(),
  status: StatusEnum,
  provider: StringEnum(['service', 'gateway'] as const),
  business_type: AccountTypeEnum,
  legal_name: Nullable(Type.String()),
  id_country: Type.String(),
  bank_name: Nullable(Type.String()),
  bank_account_number: Nullable(Type.String({ description: 'masked' })),
  bank_account_name: Nullable(Type.String()),
  institution_id: Nullable(Type.String()),
  settlement_currency: Type.String(),
  country_mismatch: Type.Boolean(),
  submitted_at: Type.String(),
  reviewed_at: Nullable(Type.String()),
  rejection_reason: Nullable(Type.String()),
  additional_info_request: Nullable(Type.String()),
  review: Nullable(
    Type.Object({
      decision: StringEnum(['auto_approve', 'manual_review'] as const),
      reasons: Type.Array(Type.String(), { description: 'every failed auto-approval condition' }),
      name_match_score: Type.Number({
        description: "legal name vs the holder's name (the name enquiry's when it found one), 0 to 1 (0.85 passes)",
      }),
      name_enquiry: Nullable(NameEnquiry),
    }),
  ),
  owner: Nullable(
    Type.Object({
      first_name: Type.String(),
      last_name: Type.String(),
      date_of_birth: Nullable(Type.String()),
      phone_number: Nullable(Type.String()),
      email: Nullable(Type.String()),
      id_type: Type.String(),
      id_number: Type.String({ description: 'masked' }),
      id_document_url: Nullable(Type.String()),
      selfie_url: Nullable(Type.String()),
    }),
  ),
  business: Nullable(
    Type.Object({
      registered_name: Type.String(),
      registration_number: Nullable(Type.String()),
      tax_id: Nullable(Type.String()),
    }),
  ),
  history: Type.Array(HistoryEntry, { description: 'The newest 50 entries, oldest first' }),
  history_summary: Nullable(
    Type.Object({
      dropped: Type.Integer({ description: 'older entries folded out of history' }),
      first_at: Type.String(),
      last_at: Type.String(),
      actions: Type.Array(Type.Object({ action: Type.String(), count: Type.Integer() })),
    }),
    { description: 'The entries older than those in history, counted; null while history holds them all' },
  ),
  personal_data_unavailable: Type.Boolean({
    description:
      'Personal fields (stored encrypted) sealed under a key the platform no longer holds: they read null until restored',
  }),
  payout_change: Nullable(
    Type.Object(
      {
        bank_name: Nullable(Type.String()),
        account_number_masked: Nullable(Type.String()),
        account_name: Nullable(Type.String()),
        name_match_score: Nullable(Type.Number()),
        reason: Type.String({
          description:
            'Comma-separated: name_mismatch:<score> (holder vs legal name), bank_name_mismatch:<score> (the bank names ' +
            'another holder of the new number), account_not_found, name_enquiry_unavailable, name_enquiry_unconfigured',
        }),
        requested_at: Type.String(),
        requested_by: Type.String(),
        name_enquiry: Nullable(NameEnquiry, {
          description: 'What the bank answered about the new number; null when the number did not change',
        }),
      },
      { description: 'A payout account change waiting for review (approve_payout_change / reject_payout_change)' },
    ),
  ),
});

export const KycReviewList = Type.Object({ submissions: Type.Array(KycReview), pagination: Pagination });

/** Keys of an object schema whose value may be null: filled in before a union is serialised. */
export function nullableKeys(schema: TSchema): string[] {
  const properties = (schema as { properties?: Record<string, { default?: unknown }> }).properties ?? {};
  return Object.entries(properties)
    .filter(([, s]) => s.default === null)
    .map(([k]) => k);
}
