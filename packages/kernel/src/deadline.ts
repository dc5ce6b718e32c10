import { PlatformError } from './errors';

/**
 * Deadlines travel with every call: the gateway sets one on each gRPC call, the service runtime hands
 * it to the use case as a Date, and every downstream call (another service, a payment processor)
 * gets at most what is left of it, so nothing keeps working for a caller that has given up without
 * knowing it. Work that must finish anyway (a processor already asked to create a payment) is
 * recorded as "outcome unknown" and completed in the background, never dropped.
 */
export const DEADLINE_MARGIN_MS = 100;

/** grpc-js' deadline (Date, epoch ms, or Infinity) as a Date, undefined when there is none. */
export function deadlineDate(deadline: Date | number | undefined): Date | undefined {
  if (deadline === undefined) return undefined;
  const ms = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(ms) ? new Date(ms) : undefined;
}

/**
 * How long a downstream call may take: its own maximum, cut to what is left of the caller's
 * deadline minus a margin for the answer to travel back. UPSTREAM_TIMEOUT when nothing is left.
 */
export function budgetMs(deadline: Date | undefined, maxMs: number, now = Date.now()): number {
  if (!deadline) return maxMs;
  const left = deadline.getTime() - now - DEADLINE_MARGIN_MS;
  if (left <= 0) {
    throw new PlatformError('UPSTREAM_TIMEOUT', undefined, { detail: "the caller's deadline has passed" });
  }
  return Math.min(maxMs, left);
}
