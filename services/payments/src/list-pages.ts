import { PlatformError } from '@ppay/kernel';

/**
 * Cursor paging of a merchant's lists (charges, disputes), newest first. A record's place in its list
 * is one string, `<created_at ISO>|<id>`, stored with it and indexed after (merchant, mode): a page is
 * one range over that key, which both MongoDB and the local FerretDB (its SQL pushdown) serve from the
 * index at any size. The cursor is the last key of a page, base64url-encoded.
 */
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

export function listKeyOf(createdAt: Date, id: string): string {
  return `${createdAt.toISOString()}|${id}`;
}

/** The page size asked for, within 1…100 (20 when not asked). */
export function pageSize(limit: number | undefined): number {
  return Math.min(Math.max(limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
}

export function encodeCursor(listKey: string): string {
  return Buffer.from(listKey).toString('base64url');
}

/** The list key a cursor stands for; INVALID_CURSOR for anything that is not one of `prefix`'s. */
export function decodeCursor(cursor: string, idPrefix: string): string {
  const key = cursor.length <= 200 ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const [at, id] = key.split('|');
  const valid =
    at !== undefined &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(at) &&
    id !== undefined &&
    id.startsWith(`${idPrefix}_`) &&
    /^[A-Za-z0-9_]{1,80}$/.test(id);
  if (!valid) throw new PlatformError('INVALID_CURSOR', undefined, { param: 'cursor' });
  return key;
}

/**
 * A page from `limit + 1` records read: the first `limit`, whether there are more, and the cursor of
 * the next page.
 */
export function pageOf<T>(read: T[], limit: number, listKey: (item: T) => string) {
  const items = read.slice(0, limit);
  const last = items[items.length - 1];
  const more = read.length > limit;
  return { items, has_more: more, next_cursor: more && last ? encodeCursor(listKey(last)) : null };
}

/** The list-key range of a page: within [from, to) and before the cursor; `> ''` leaves unlisted records out. */
export function listKeyRange(q: { from?: Date; to?: Date; after?: string }): Record<string, string> {
  const upper = [q.after, q.to?.toISOString()].filter((k): k is string => Boolean(k)).sort()[0];
  const range: Record<string, string> = q.from ? { $gte: q.from.toISOString() } : { $gt: '' };
  if (upper) range.$lt = upper;
  return range;
}
