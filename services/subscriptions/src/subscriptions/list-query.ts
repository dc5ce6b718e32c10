import { PlatformError } from '@ppay/kernel';
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from './lifecycle';

/** GET /subscriptions query (spec 4.5), validated and with defaults applied. */

export const SORT_BY = ['created_at', 'next_payment', 'actual_price', 'payment_status'] as const;
export type SortBy = (typeof SORT_BY)[number];
export const SORT_ORDERS = ['ASC', 'DESC'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

export const LIMIT_MIN = 1;
export const LIMIT_MAX = 100;
export const LIMIT_DEFAULT = 20;
/**
 * Deepest offset served. Skip-based paging reads and discards every skipped document, so a large offset
 * costs the database as much as returning them all; 10,000 rows is 100 full pages, more than anybody
 * pages through by hand. Deeper reads should narrow the query (status, product_id) instead.
 */
export const OFFSET_MAX = 10_000;

export interface ListQuery {
  status?: SubscriptionStatus;
  product_id?: number;
  limit: number;
  offset: number;
  sort_by: SortBy;
  sort_order: SortOrder;
}

export type SortDirection = 1 | -1;
/** Ordered [document field, direction] pairs, ready for a database sort. */
export type SortSpec = ReadonlyArray<readonly [string, SortDirection]>;

/** The stored field behind each public sort key. */
export const SORT_FIELDS: Readonly<Record<SortBy, string>> = {
  created_at: 'created_at',
  next_payment: 'next_payment_date',
  actual_price: 'amount.amount',
  payment_status: 'payment_status',
};

/**
 * Raw parameters as the transport delivers them: numbers from gRPC or strings from a query string.
 * Absent means undefined, null or '' (an empty query parameter).
 */
export interface ListQueryInput {
  status?: unknown;
  product_id?: unknown;
  limit?: unknown;
  offset?: unknown;
  sort_by?: unknown;
  sort_order?: unknown;
}

const absent = (v: unknown) => v === undefined || v === null || v === '';

function invalid(param: string, rule: string): PlatformError {
  return new PlatformError('VALIDATION_FAILED', `${param} ${rule}`, { param });
}

function oneOf<T extends string>(raw: unknown, values: readonly T[], param: string): T | undefined {
  if (absent(raw)) return undefined;
  if (typeof raw === 'string' && (values as readonly string[]).includes(raw)) return raw as T;
  throw invalid(param, `must be one of ${values.join(', ')}`);
}

/** A whole number from a number or a plain decimal string ("20"); no signs, spaces, exponents or fractions. */
function integer(raw: unknown, param: string, min: number, max: number): number | undefined {
  if (absent(raw)) return undefined;
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw invalid(
      param,
      max === Number.MAX_SAFE_INTEGER ? `must be an integer ≥ ${min}` : `must be an integer from ${min} to ${max}`,
    );
  }
  return value;
}

/** Ties on the sort key are broken by created_at, then id, in the same direction, so pages never overlap. */
export function sortSpec(sortBy: SortBy, sortOrder: SortOrder): SortSpec {
  const dir: SortDirection = sortOrder === 'ASC' ? 1 : -1;
  const fields = [SORT_FIELDS[sortBy], 'created_at', 'id'].filter((f, i, all) => all.indexOf(f) === i);
  return fields.map((f) => [f, dir] as const);
}

export function parseListQuery(raw: ListQueryInput): { query: ListQuery; sortSpec: SortSpec } {
  const status = oneOf(raw.status, SUBSCRIPTION_STATUSES, 'status');
  const productId = integer(raw.product_id, 'product_id', 1, Number.MAX_SAFE_INTEGER);
  const query: ListQuery = {
    ...(status !== undefined && { status }),
    ...(productId !== undefined && { product_id: productId }),
    limit: integer(raw.limit, 'limit', LIMIT_MIN, LIMIT_MAX) ?? LIMIT_DEFAULT,
    offset: integer(raw.offset, 'offset', 0, OFFSET_MAX) ?? 0,
    sort_by: oneOf(raw.sort_by, SORT_BY, 'sort_by') ?? 'created_at',
    sort_order: oneOf(raw.sort_order, SORT_ORDERS, 'sort_order') ?? 'DESC',
  };
  return { query, sortSpec: sortSpec(query.sort_by, query.sort_order) };
}
