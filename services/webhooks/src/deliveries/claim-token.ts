import { randomUUID } from 'node:crypto';

/**
 * A claim token: unique per claim, and carrying its lease's end so whoever records the outcome knows,
 * without a read, whether the lease still has time (see MongoOutcomeWrites).
 */
export function claimToken(owner: string, leaseUntil: Date): string {
  return `${owner}:${randomUUID()}:${leaseUntil.getTime()}`;
}

/** The lease end a claim token carries, or null for a token without one. */
export function leaseEndOf(token: string): number | null {
  const end = Number(token.slice(token.lastIndexOf(':') + 1));
  return Number.isSafeInteger(end) && end > 0 ? end : null;
}
