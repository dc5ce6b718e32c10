import type { KycCaseRecord, PayoutRecord, PayoutAccountRecord } from '../cases/kyc-case';
import { OPERATOR, sandbox, SUB } from '../memory-ports.test-util';
import type { OperatorCaller } from '../ports';
import type { KycSubmissionInput } from './submission';
import { NOW } from './submission-bodies.test-util';
import type { RouteOutcome, SubmissionRoute } from './submission-route';

/** One route driven directly, as KycSubmissionService drives it: SUB of OPERATOR's, in sandbox, at NOW. */

export const LATER = new Date(NOW.getTime() + 60 * 60_000);

export function attemptOn<S extends KycSubmissionInput>(
  route: SubmissionRoute<S>,
  input: S,
  options: { existing?: KycCaseRecord | null; previous?: RouteOutcome; at?: Date; caller?: OperatorCaller } = {},
): Promise<RouteOutcome> {
  return route.attempt({
    caller: options.caller ?? sandbox,
    merchantId: SUB,
    sub: {
      marketplace_id: OPERATOR,
      merchant: { id: SUB, country: 'NG', baseline_currency: 'NGN', business_name: 'Adebayo Foods' },
    },
    input,
    existing: options.existing ?? null,
    previous: options.previous ?? null,
    now: options.at ?? NOW,
  });
}

/** The `change` of each event the outcome writes. */
export const changes = (outcome: RouteOutcome) => outcome.events.map((e) => (e.data as { change: string }).change);

/** A payout set up at NOW with a bank account in `currency` (what reconcilePayout looks at). */
export const bankPayoutIn = (currency: string): PayoutRecord => ({
  set_up_at: NOW,
  updated_at: NOW,
  account: { kind: 'bank_account', currency } as PayoutAccountRecord,
});
