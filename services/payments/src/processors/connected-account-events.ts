import { PlatformError } from '@ppay/kernel';
import type { ConnectedAccountEvent, EventApplier, Verdict } from './processor-event';

/**
 * kyc's answer to one connected account event: applied (the case moved), unchanged (it already is what
 * the event says), stale (older than the last event applied to it), refused (its status forbids the move:
 * a revoked case stays revoked), not_found (no live case has the account).
 */
export interface AccountStatusAnswer {
  outcome: 'applied' | 'unchanged' | 'stale' | 'refused' | 'not_found';
  submission_id: number | null;
  status: string | null;
}

/** Where connected accounts' KYC lives (the kyc service); throws when it cannot be asked. */
export interface ConnectedAccountStatuses {
  apply(event: ConnectedAccountEvent): Promise<AccountStatusAnswer>;
}

/**
 * A connected account's status event, handed to kyc, which owns the case and decides (payments stays the
 * one verifier and inbox of the processor's events). kyc's answer is the event's verdict: a case not there
 * yet (the account's first events can overtake the submission's own write) is `later`, then `unmatched`;
 * kyc unavailable is `retry`, backing off, never unmatched; a request kyc refuses as invalid is `mismatch`
 * (kept for an operator: asking again would be refused again).
 */
export class ConnectedAccountEventApplier implements EventApplier<ConnectedAccountEvent> {
  constructor(
    private readonly deps: { statuses: ConnectedAccountStatuses },
    /** kyc could not be asked: the event stays received and is retried. */
    private readonly onUnavailable?: (event: ConnectedAccountEvent, err: unknown) => void,
  ) {}

  async apply(e: ConnectedAccountEvent): Promise<Verdict> {
    let answer: AccountStatusAnswer;
    try {
      answer = await this.deps.statuses.apply(e);
    } catch (err) {
      if (err instanceof PlatformError && err.code === 'VALIDATION_FAILED') {
        return { status: 'mismatch', note: `kyc refused the event: ${err.message}`.slice(0, 300) };
      }
      this.onUnavailable?.(e, err);
      return 'retry';
    }
    const kyc = `KYC submission ${answer.submission_id}`;
    switch (answer.outcome) {
      case 'not_found':
        return 'later';
      case 'applied':
        return { status: 'applied', note: `${kyc} is ${answer.status}` };
      case 'unchanged':
        return { status: 'duplicate', note: `${kyc} already is ${answer.status}` };
      case 'stale':
        return { status: 'stale', note: `${kyc} has a newer account event applied` };
      case 'refused':
        return { status: 'stale', note: `${kyc} is ${answer.status}: the event cannot move it` };
    }
  }
}
