import { PlatformError, type Mode, type OutboxEntry } from '@ppay/kernel';
import { clockOf, requireSandbox, subscriptionNotFound, type SubscriptionRecord } from '../subscriptions/subscription';
import { DAY_MS, periodContaining } from './calendar';
import type { LeasedScheduler } from './leased-scheduler';

/** The sandbox clock moves at most this far in one call (bounded work per request). */
export const MAX_ADVANCE_MS = 10 * 366 * DAY_MS;
const MAX_TO_LENGTH = 40;
/**
 * Renewals one call may run (each a real charge, with its events and webhooks): two years of a monthly
 * plan, six months of a weekly one. Further is several calls (docs/decisions.md, H2-3).
 */
export const MAX_ADVANCE_RENEWALS = 24;

/** How many renewals (period starts) moving the subscription's clock from `from` to `to` makes due. */
export function renewalsBetween(
  rec: Pick<SubscriptionRecord, 'status' | 'billing_anchor' | 'frequency' | 'cancel_at'>,
  from: Date,
  to: Date,
): number {
  const anchor = rec.billing_anchor;
  if (!anchor || rec.status === 'cancelled' || rec.status === 'paused') return 0;
  const until = rec.cancel_at && rec.cancel_at < to ? rec.cancel_at : to;
  const index = (at: Date) => (at < anchor ? -1 : periodContaining(anchor, rec.frequency, at).index);
  return Math.max(0, index(until) - index(from));
}

/** Anything with its own sandbox clock that the leased scheduler works on: a subscription, an installment plan. */
export interface ClockedItem {
  id: string;
  clock_offset_ms: number;
}

/** Where clocked items are read and written (conditionally on their version). */
export interface ClockedStore<T extends ClockedItem> {
  findForMerchant(merchantId: number, mode: Mode, id: string): Promise<T | null>;
  save(next: T, events: OutboxEntry[]): Promise<T | null>;
}

/**
 * How the clock names what it moves in its errors (the item's noun, its id parameter and its 404), and
 * how many charges a move would run when that is unbounded (a subscription renews forever; a plan has
 * at most twelve parts).
 */
export interface ClockedKind<T = never> {
  noun: string;
  param: string;
  notFound(): PlatformError;
  stepsBetween?(item: T, from: Date, to: Date): number;
}

export const SUBSCRIPTION_CLOCK: ClockedKind<SubscriptionRecord> = {
  noun: 'subscription',
  param: 'subscription_id',
  notFound: subscriptionNotFound,
  stepsBetween: renewalsBetween,
};

/**
 * The sandbox clock of one item (beyond the spec): its time moves, and whatever falls due up to then
 * (renewals, installment parts, retries) runs at once.
 */
export class SandboxClock<T extends ClockedItem> {
  constructor(
    private readonly items: ClockedStore<T>,
    private readonly scheduler: Pick<LeasedScheduler<T>, 'runNow'>,
    private readonly kind: ClockedKind<T>,
    private readonly realNow: () => Date = () => new Date(),
  ) {}

  /**
   * Moves one item's clock to `to` and runs everything due up to then before answering. Forward only,
   * at most ten years per call.
   */
  async advance(merchantId: number, mode: Mode, id: string, toRaw: string, deadline?: Date): Promise<T> {
    requireSandbox(mode);
    const to = parseInstant(toRaw);
    const { noun, param } = this.kind;
    for (let i = 0; ; i++) {
      const rec = await this.items.findForMerchant(merchantId, mode, id);
      if (!rec) throw this.kind.notFound();
      const real = this.realNow();
      const clock = clockOf(rec, real);
      if (to.getTime() < clock.getTime()) {
        throw new PlatformError(
          'VALIDATION_FAILED',
          `to must not be before the ${noun}'s clock (${clock.toISOString()})`,
          {
            param: 'to',
          },
        );
      }
      if (to.getTime() - clock.getTime() > MAX_ADVANCE_MS) {
        throw new PlatformError('VALIDATION_FAILED', `to must be at most ten years after the ${noun}'s clock`, {
          param: 'to',
        });
      }
      const steps = this.kind.stepsBetween?.(rec, clock, to) ?? 0;
      if (steps > MAX_ADVANCE_RENEWALS) {
        throw new PlatformError('CLOCK_ADVANCE_TOO_FAR', undefined, {
          param: 'to',
          detail: `to is ${steps} renewals ahead; one call runs at most ${MAX_ADVANCE_RENEWALS}`,
        });
      }
      const saved = await this.items.save({ ...rec, clock_offset_ms: to.getTime() - real.getTime() }, []);
      if (saved) break;
      if (i >= 5) throw new PlatformError('CONFLICT', undefined, { param });
    }
    // Whatever is now due runs here, by the same code as the background scheduler; if a scheduler holds
    // the lease, wait for it to finish (it runs the same work).
    if (!(await this.scheduler.runNow(id, deadline))) {
      throw new PlatformError('CONFLICT', `The ${noun} is being charged; try again`, { param });
    }
    const after = await this.items.findForMerchant(merchantId, mode, id);
    if (!after) throw this.kind.notFound();
    return after;
  }
}

/**
 * An RFC 3339 date-time as the gateway's schema accepts it (`T`, `t` or a space; `Z`, `z` or an offset;
 * any fraction; a leap second counts as the next second). Bounded before the pattern runs; no backtracking.
 */
export function parseInstant(raw: string): Date {
  const text = (raw ?? '').trim();
  const m =
    text.length <= MAX_TO_LENGTH
      ? /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?([Zz]|([+-])(\d{2}):?(\d{2}))$/.exec(text)
      : null;
  const invalid = () =>
    new PlatformError('VALIDATION_FAILED', 'to must be an ISO 8601 date-time with a time zone', { param: 'to' });
  if (!m) throw invalid();
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 60) {
    throw invalid();
  }
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second, Math.floor(Number(`0${m[7] ?? ''}`) * 1000));
  const offsetMinutes = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) : 0;
  return new Date(at.getTime() - offsetMinutes * 60_000);
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
