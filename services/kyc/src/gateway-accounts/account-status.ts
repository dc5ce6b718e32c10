import type { Mode } from '@ppay/kernel';
import { decidedCase } from '../cases/case-decisions';
import { submissionUpdated, type KycCaseRecord } from '../cases/kyc-case';
import { INFO_REQUEST_MAX, KYC_TRANSITIONS, type KycActionType } from '../cases/kyc-status';
import { retryLostWrites } from '../cases/lost-writes';
import { withDefaults, type KycCaseRepository, type UseCaseExtras } from '../ports';

/**
 * A live connected account's state at the card gateway, as one of its account events carried it
 * (payments verifies and maps the gateway's events; this is the part kyc decides on).
 */
export interface ConnectedAccountSnapshot {
  gateway_account_id: string;
  /** The gateway's event id and type (logs, the history entry's actor id). */
  event_id: string;
  event_type: string;
  /** When the gateway made the event: snapshots are ordered by it, never by arrival. */
  occurred_at: Date;
  charges_enabled: boolean;
  payouts_enabled: boolean;
  details_submitted: boolean;
  currently_due: string[];
  past_due: string[];
  eventually_due: string[];
  disabled_reason: string | null;
  /** The account disconnected the platform. */
  deauthorized: boolean;
}

/**
 * applied: the status moved (kyc.submission.updated written); unchanged: the snapshot leaves the status
 * as it is (its time is recorded); stale: older than the last snapshot applied; refused: the status
 * machine forbids the move (a revoked case stays revoked); not_found: no case of that mode has the account.
 */
export type AccountStatusOutcome =
  { outcome: 'applied' | 'unchanged' | 'stale' | 'refused'; kyc: KycCaseRecord } | { outcome: 'not_found' };

/** The gateway's decision in a snapshot, as a status-machine action; null when it decides nothing yet. */
export type GatewayVerdict =
  | { type: 'gateway_approve' }
  | { type: 'gateway_request_info'; message: string }
  | { type: 'gateway_reject' | 'gateway_revoke'; reason: string };

export const DEAUTHORIZED_REASON = 'The connected account disconnected the platform at the card gateway';
const REJECTED_PREFIX = 'rejected.';

/**
 * What a snapshot says, strongest first: a disconnection revokes; a `rejected.*` disabled reason rejects
 * (that reason kept); requirements currently or past due once the merchant has submitted their details ask
 * for more (before that, due requirements are simply the onboarding not done yet: the case stays
 * pending_onboarding); nothing due with charges and payouts enabled approves. Anything else (the gateway
 * still verifying, an account paused for its own review) decides nothing.
 */
export function gatewayVerdict(s: ConnectedAccountSnapshot): GatewayVerdict | null {
  if (s.deauthorized) return { type: 'gateway_revoke', reason: DEAUTHORIZED_REASON };
  if (s.disabled_reason?.startsWith(REJECTED_PREFIX)) return { type: 'gateway_reject', reason: s.disabled_reason };
  const due = [...new Set([...s.past_due, ...s.currently_due])];
  if (due.length > 0) return s.details_submitted ? { type: 'gateway_request_info', message: dueMessage(due) } : null;
  if (s.charges_enabled && s.payouts_enabled) return { type: 'gateway_approve' };
  return null;
}

/** The requirements the operator must have the merchant provide, bounded to the field's maximum. */
function dueMessage(due: string[]): string {
  const head = 'The card gateway needs: ';
  let text = head;
  for (const [i, item] of due.entries()) {
    const more = ` … and ${due.length - i} more`;
    const next = `${text === head ? '' : ', '}${item}`;
    if (text.length + next.length + more.length > INFO_REQUEST_MAX) return text + more;
    text += next;
  }
  return text;
}

const TO: Record<GatewayVerdict['type'], KycCaseRecord['status']> = {
  gateway_approve: 'approved',
  gateway_request_info: 'additional_info_requested',
  gateway_reject: 'rejected',
  gateway_revoke: 'revoked',
};

export interface AccountStatusDeps extends Omit<UseCaseExtras, 'metrics'> {
  cases: KycCaseRepository;
  /** Counts a status change the gateway made (`ppay_connected_account_status_changes_total{to}`). */
  changed?: (to: string) => void;
}

/**
 * Applies the card gateway's account events to live connected-account cases. Idempotent (the same snapshot
 * again finds the case already there and writes nothing) and safe out of order (a snapshot older than the
 * last applied, by the gateway's event time, is stale). Each change is one conditional write of the case
 * with its kyc.submission.updated event, as a reviewer's decision is.
 */
export class ConnectedAccountStatusService {
  private readonly deps: AccountStatusDeps & { now: () => Date };

  constructor(deps: AccountStatusDeps) {
    const { now } = withDefaults(deps);
    this.deps = { ...deps, now };
  }

  apply(s: ConnectedAccountSnapshot, mode: Mode = 'live'): Promise<AccountStatusOutcome> {
    return retryLostWrites(async () => {
      const c = await this.deps.cases.findByGatewayAccount(s.gateway_account_id, mode);
      if (!c || !c.connected) return { outcome: 'not_found' as const };
      const last = c.connected.status_event_at ?? null;
      if (last && s.occurred_at.getTime() < last.getTime()) return { outcome: 'stale' as const, kyc: c };
      const at = last && last.getTime() >= s.occurred_at.getTime() ? last : s.occurred_at;
      const verdict = gatewayVerdict(s);
      const now = this.deps.now();
      const base: KycCaseRecord = { ...c, connected: { ...c.connected, status_event_at: at } };
      if (!verdict || TO[verdict.type] === c.status) return this.unchanged(c, base, verdict, now);
      const type: KycActionType = verdict.type;
      if (!KYC_TRANSITIONS[type][c.status]) return { outcome: 'refused' as const, kyc: c };
      const next = decidedCase({ ...base, version: c.version + 1, updated_at: now }, type, 'gateway', s.event_id, {
        reason: 'reason' in verdict ? verdict.reason : null,
        message: 'message' in verdict ? verdict.message : null,
      });
      if (!(await this.deps.cases.save(c.version, next, [submissionUpdated(next, c.status, type)]))) return undefined;
      this.deps.changed?.(next.status);
      return { outcome: 'applied' as const, kyc: next };
    });
  }

  /**
   * The status stays: only the snapshot's time (and, while information is asked for, the current list)
   * are recorded, with no event; nothing is written when both are already there.
   */
  private async unchanged(c: KycCaseRecord, base: KycCaseRecord, verdict: GatewayVerdict | null, now: Date) {
    const message =
      verdict?.type === 'gateway_request_info' && c.status === 'additional_info_requested'
        ? verdict.message
        : c.additional_info_request;
    const sameTime = c.connected?.status_event_at?.getTime() === base.connected?.status_event_at?.getTime();
    if (sameTime && message === c.additional_info_request) return { outcome: 'unchanged' as const, kyc: c };
    const next = { ...base, additional_info_request: message, version: c.version + 1, updated_at: now };
    if (!(await this.deps.cases.save(c.version, next, []))) return undefined;
    return { outcome: 'unchanged' as const, kyc: next };
  }
}
