import { Type } from '@sinclair/typebox';
import { DISPUTE_EVIDENCE_FIELDS, DISPUTE_REASONS, DISPUTE_STATUSES } from '@ppay/kernel';
import { Cursor, LIMITS, Nullable, StringEnum } from './common';

/** Disputes (docs/decisions.md, Disputes): the REST dispute is the dispute.* events' dispute object. */

const DateTime = (description?: string) => Type.String({ format: 'date-time', maxLength: 40, description });
const DisputeId = Type.String({ minLength: 1, maxLength: 64, description: '`dp_…`' });

/** Spec 6.5 MoneyAmount: integer minor units and the ISO 4217 code, as an object. */
const MoneyAmount = Type.Object({ amount: Type.Integer(), currency: Type.String() });

export const DisputeParams = Type.Object({ dispute_id: DisputeId });

export const DisputeOutcomeParams = Type.Object({
  dispute_id: DisputeId,
  outcome: StringEnum(['won', 'lost'] as const),
});

export const DisputeListQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(DISPUTE_STATUSES)),
    charge_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    from: Type.Optional(DateTime('Disputes opened at or after this time')),
    to: Type.Optional(DateTime('Disputes opened before this time')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Cursor()),
  },
  { additionalProperties: false },
);

/**
 * The longest value of each evidence field, in bytes of UTF-8 (the payments service checks the bytes and
 * the total; JSON Schema can only count characters, so the schema bounds those by the same numbers).
 */
export const EVIDENCE_LIMITS = {
  customer_name: 200,
  customer_email: LIMITS.email,
  product_description: 5_000,
  shipping_carrier: 100,
  shipping_tracking_number: 100,
  shipping_date: 10,
  service_date: 10,
  refund_policy: 5_000,
  cancellation_policy: 5_000,
  receipt_url: LIMITS.url,
  uncategorized_text: 20_000,
} as const satisfies Record<(typeof DISPUTE_EVIDENCE_FIELDS)[number], number>;

/** All evidence fields together, as saved, in bytes of UTF-8. */
export const EVIDENCE_TOTAL_BYTES = 32_768;

const EVIDENCE_HELP: Partial<Record<keyof typeof EVIDENCE_LIMITS, string>> = {
  shipping_date: 'YYYY-MM-DD',
  service_date: 'YYYY-MM-DD',
  receipt_url: 'Absolute https URL',
  uncategorized_text: 'Anything else. Sandbox: "winning_evidence" wins the dispute, "losing_evidence" loses it',
};

const evidenceInput = Object.fromEntries(
  DISPUTE_EVIDENCE_FIELDS.map((f) => [
    f,
    Type.Optional(
      Type.Union([Type.String({ maxLength: EVIDENCE_LIMITS[f] }), Type.Null()], {
        description: `${EVIDENCE_HELP[f] ? `${EVIDENCE_HELP[f]}; ` : ''}at most ${EVIDENCE_LIMITS[f]} bytes of UTF-8; null clears it`,
      }),
    ),
  ]),
);

export const EvidenceBody = Type.Object(
  {
    ...evidenceInput,
    submit: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'false: save a draft (repeatable, fields merged). true: submit to the processor (once)',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      `Each field at most its stated bytes of UTF-8 (an accented letter takes 2, an emoji 4), and all the saved ` +
      `fields together at most ${EVIDENCE_TOTAL_BYTES} bytes: more is a 400 naming evidence.<field>, or evidence ` +
      `for the total.`,
  },
);

export const SandboxDisputeBody = Type.Object(
  {
    reason: Type.Optional(StringEnum(DISPUTE_REASONS, { default: 'general' })),
    amount: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: LIMITS.amount,
        description: 'Minor units of the charge currency; absent = everything not refunded',
      }),
    ),
  },
  { additionalProperties: false },
);

const Funds = Type.Object({
  merchant_id: Type.Integer(),
  role: StringEnum(['merchant', 'operator', 'sub_merchant'] as const),
  kind: StringEnum(['dispute_withdrawal', 'dispute_fee'] as const),
  amount: MoneyAmount,
});

export const DisputeData = Type.Object(
  {
    dispute_id: Type.String(),
    charge_id: Type.String(),
    sub_merchant_id: Nullable(Type.Integer(), { description: 'The sub-merchant of a marketplace split charge' }),
    amount: MoneyAmount,
    fee: MoneyAmount,
    reason: StringEnum(DISPUTE_REASONS),
    status: StringEnum(DISPUTE_STATUSES),
    evidence: Type.Object(Object.fromEntries(DISPUTE_EVIDENCE_FIELDS.map((f) => [f, Nullable(Type.String())]))),
    evidence_details: Type.Object(
      {
        has_evidence: Type.Boolean(),
        fields_provided: Type.Array(StringEnum(DISPUTE_EVIDENCE_FIELDS), { description: 'The evidence fields saved' }),
        submission_count: Type.Integer({ minimum: 0, maximum: 1, description: '1 once the evidence was submitted' }),
      },
      {
        description:
          'Which evidence is saved. dispute.* webhooks carry the dispute with this and without `evidence` (the texts)',
      },
    ),
    evidence_due_by: DateTime(),
    evidence_submitted_at: Nullable(DateTime()),
    is_live: Type.Boolean(),
    funds_withdrawn: Type.Array(Funds, { description: 'Taken from each wallet when the dispute opened' }),
    funds_reinstated: Type.Array(Funds, { description: 'Given back when the dispute was won' }),
    created_at: DateTime(),
    updated_at: DateTime(),
    closed_at: Nullable(DateTime()),
  },
  { additionalProperties: false },
);

export const DisputeList = Type.Object({
  disputes: Type.Array(DisputeData),
  has_more: Type.Boolean(),
  next_cursor: Nullable(Type.String()),
});
