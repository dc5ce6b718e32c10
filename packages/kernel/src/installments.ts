import { periodStart } from './calendar';
import { PlatformError } from './errors';
import { splitMoney, type Money } from './money';

/**
 * Installment plans: a total paid in parts on a schedule (issue 26). The terms and the schedule are
 * shared by payments (which validates the session request, charges the first part on the hosted page
 * and shows the schedule there) and subscriptions (which charges the later parts).
 */
export const INSTALLMENT_INTERVALS = ['weekly', 'monthly'] as const;
export type InstallmentInterval = (typeof INSTALLMENT_INTERVALS)[number];

export const INSTALLMENT_COUNT_MIN = 2;
export const INSTALLMENT_COUNT_MAX = 12;

export interface InstallmentTerms {
  count: number;
  interval: InstallmentInterval;
}

export function isInstallmentInterval(value: unknown): value is InstallmentInterval {
  return typeof value === 'string' && (INSTALLMENT_INTERVALS as readonly string[]).includes(value);
}

/** The terms as a partner sent them (`installments` of POST /payments/sessions), checked: 400 naming the field. */
export function installmentTerms(raw: { count?: unknown; interval?: unknown }): InstallmentTerms {
  const { count, interval } = raw;
  if (
    typeof count !== 'number' ||
    !Number.isSafeInteger(count) ||
    count < INSTALLMENT_COUNT_MIN ||
    count > INSTALLMENT_COUNT_MAX
  ) {
    throw new PlatformError(
      'VALIDATION_FAILED',
      `installments.count must be an integer from ${INSTALLMENT_COUNT_MIN} to ${INSTALLMENT_COUNT_MAX}`,
      { param: 'installments.count' },
    );
  }
  if (!isInstallmentInterval(interval)) {
    throw new PlatformError(
      'VALIDATION_FAILED',
      `installments.interval must be one of ${INSTALLMENT_INTERVALS.join(', ')}`,
      {
        param: 'installments.interval',
      },
    );
  }
  return { count, interval };
}

/** One part of a plan: its number (1 = paid at checkout), its amount and when it falls due. */
export interface ScheduledInstallment {
  number: number;
  amount: Money;
  due_at: Date;
}

/**
 * The plan's schedule: `total` split exactly (the remainder on part 1), part 1 due at `anchor` (the
 * first payment) and part n at the anchor plus n − 1 intervals, on the billing calendar (month ends
 * clamp: Jan 31 → Feb 28 → Mar 31).
 */
export function installmentSchedule(total: Money, terms: InstallmentTerms, anchor: Date): ScheduledInstallment[] {
  return splitMoney(total, terms.count).map((amount, i) => ({
    number: i + 1,
    amount,
    due_at: periodStart(anchor, terms.interval, i),
  }));
}
