import { DISPUTE_EVIDENCE_FIELDS, PlatformError, type DisputeEvidence, type DisputeEvidenceField } from '@ppay/kernel';

/**
 * The longest value of each evidence field, in bytes of UTF-8 (docs/decisions.md, Disputes; Hardening 3):
 * bytes, not characters, are what the dispute document and its events hold.
 */
export const EVIDENCE_MAX_BYTES: Readonly<Record<DisputeEvidenceField, number>> = {
  customer_name: 200,
  customer_email: 254,
  product_description: 5_000,
  shipping_carrier: 100,
  shipping_tracking_number: 100,
  shipping_date: 10,
  service_date: 10,
  refund_policy: 5_000,
  cancellation_policy: 5_000,
  receipt_url: 2_048,
  uncategorized_text: 20_000,
};

/** All the saved fields together, in bytes of UTF-8: less than the fields' sum, so a dispute stays small. */
export const EVIDENCE_TOTAL_MAX_BYTES = 32_768;

const utf8Bytes = (value: string): number => Buffer.byteLength(value, 'utf8');

const DATE_FIELDS: readonly DisputeEvidenceField[] = ['shipping_date', 'service_date'];

/** Evidence as a partner sends it: any subset of the fields; null (or blank) clears one. */
export type EvidenceInput = Partial<Record<DisputeEvidenceField, string | null>>;

function invalid(field: string, message: string): PlatformError {
  return new PlatformError('VALIDATION_FAILED', message, { param: `evidence.${field}` });
}

function checkDate(field: string, value: string): void {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const date = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
  if (!date || date.toISOString().slice(0, 10) !== value) {
    throw invalid(field, `${field} must be a date as YYYY-MM-DD`);
  }
}

function checkHttpsUrl(field: string, value: string): void {
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (!url || url.protocol !== 'https:' || !url.hostname)
    throw invalid(field, `${field} must be an absolute https URL`);
}

/**
 * The evidence fields a request sets, each checked: its size first (before any pattern), then a
 * date's or a URL's form. Unknown fields never reach here (the gateway refuses them). The size is in
 * bytes of UTF-8, as sent (a string longer in UTF-16 units than the limit is over it in bytes too, so
 * that is refused before it is measured).
 */
export function validateEvidence(input: EvidenceInput): Partial<DisputeEvidence> {
  const out: Partial<DisputeEvidence> = {};
  for (const field of DISPUTE_EVIDENCE_FIELDS) {
    if (!(field in input) || input[field] === undefined) continue;
    const raw = input[field];
    if (raw !== null && typeof raw !== 'string') throw invalid(field, `${field} must be a string or null`);
    const max = EVIDENCE_MAX_BYTES[field];
    if (raw !== null && (raw.length > max || utf8Bytes(raw) > max)) {
      throw invalid(field, `${field} must be at most ${max} bytes (UTF-8)`);
    }
    const value = raw?.trim() || null;
    if (value !== null) {
      if (DATE_FIELDS.includes(field)) checkDate(field, value);
      if (field === 'receipt_url') checkHttpsUrl(field, value);
      if (field === 'customer_email' && !/^[^\s@]+@[^\s@]+$/.test(value)) {
        throw invalid(field, 'customer_email must be an e-mail address');
      }
    }
    out[field] = value;
  }
  return out;
}

/** The draft as it would be saved, within EVIDENCE_TOTAL_MAX_BYTES all fields together (400 `evidence`). */
export function checkEvidenceTotal(evidence: DisputeEvidence): void {
  let total = 0;
  for (const field of DISPUTE_EVIDENCE_FIELDS) total += utf8Bytes(evidence[field] ?? '');
  if (total > EVIDENCE_TOTAL_MAX_BYTES) {
    throw new PlatformError(
      'VALIDATION_FAILED',
      `The evidence fields together must be at most ${EVIDENCE_TOTAL_MAX_BYTES} bytes (UTF-8); these would be ${total}`,
      { param: 'evidence' },
    );
  }
}
