import { PlatformError } from '@ppay/kernel';
import { parseInstant } from '../renewals/sandbox-clock';
import { PLAN_STATUSES, type PlanStatus } from './installment-plan';

/**
 * GET /installment-plans query: filters `status`, `customer_email`, `from`, `to` (on created_at: from
 * inclusive, to exclusive) and cursor paging (1–100 per page, newest first). Plans are ordered by their
 * `sort_key`, `<created_at ISO>|<id>`: one scalar, unique, whose string order is the time order (the
 * ISO form has a fixed width), so a page, its cursor and the time range are one range on one indexed field.
 */
export interface PlanListQuery {
  status?: PlanStatus;
  customer_email?: string;
  /** sort_key ≥ this (the `from` instant). */
  from_key?: string;
  /** sort_key < this: the earlier of `to` and the cursor. */
  before_key?: string;
  limit: number;
}

export interface PlanListInput {
  status?: unknown;
  customer_email?: unknown;
  from?: unknown;
  to?: unknown;
  limit?: unknown;
  cursor?: unknown;
}

export const PLAN_LIMIT_MAX = 100;
export const PLAN_LIMIT_DEFAULT = 20;
const MAX_EMAIL = 254;
const MAX_CURSOR = 200;

export const sortKey = (createdAt: Date, id: string) => `${createdAt.toISOString()}|${id}`;

/** The cursor of a page that ends with this sort key (opaque to partners). */
export const cursorOf = (key: string) => Buffer.from(key, 'utf8').toString('base64url');

const absent = (v: unknown) => v === undefined || v === null || v === '';
const invalid = (param: string, message: string) => new PlatformError('VALIDATION_FAILED', message, { param });

function readCursor(raw: unknown): string {
  const text = typeof raw === 'string' && raw.length <= MAX_CURSOR ? raw : '';
  const key = /^[A-Za-z0-9_-]+$/.test(text) ? Buffer.from(text, 'base64url').toString('utf8') : '';
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\|[A-Za-z0-9_]{1,64}$/.test(key)) {
    throw new PlatformError('INVALID_CURSOR', undefined, { param: 'cursor' });
  }
  return key;
}

function instant(raw: unknown, param: string): Date | undefined {
  if (absent(raw)) return undefined;
  try {
    return parseInstant(String(raw));
  } catch {
    throw invalid(param, `${param} must be an ISO 8601 date-time with a time zone`);
  }
}

export function parsePlanListQuery(raw: PlanListInput): PlanListQuery {
  let status: PlanStatus | undefined;
  if (!absent(raw.status)) {
    if (!(PLAN_STATUSES as readonly unknown[]).includes(raw.status)) {
      throw invalid('status', `status must be one of ${PLAN_STATUSES.join(', ')}`);
    }
    status = raw.status as PlanStatus;
  }
  let email: string | undefined;
  if (!absent(raw.customer_email)) {
    // Compared as stored (exact): an address no plan has simply finds nothing.
    email = typeof raw.customer_email === 'string' ? raw.customer_email : '';
    if (!email || email.length > MAX_EMAIL) {
      throw invalid('customer_email', `customer_email must be 1 to ${MAX_EMAIL} characters`);
    }
  }
  const from = instant(raw.from, 'from');
  const to = instant(raw.to, 'to');
  if (from && to && from.getTime() > to.getTime()) throw invalid('from', 'from must not be after to');
  let limit = PLAN_LIMIT_DEFAULT;
  if (!absent(raw.limit)) {
    limit = typeof raw.limit === 'number' ? raw.limit : /^\d{1,4}$/.test(String(raw.limit)) ? Number(raw.limit) : NaN;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > PLAN_LIMIT_MAX) {
      throw invalid('limit', `limit must be an integer from 1 to ${PLAN_LIMIT_MAX}`);
    }
  }
  const cursor = absent(raw.cursor) ? undefined : readCursor(raw.cursor);
  const toKey = to?.toISOString();
  const before = cursor !== undefined && toKey !== undefined ? (cursor < toKey ? cursor : toKey) : (cursor ?? toKey);
  return {
    ...(status && { status }),
    ...(email && { customer_email: email }),
    ...(from && { from_key: from.toISOString() }),
    ...(before !== undefined && { before_key: before }),
    limit,
  };
}
