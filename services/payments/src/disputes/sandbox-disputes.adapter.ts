import { PlatformError, type Mode } from '@ppay/kernel';
import type { DisputeRecord } from './dispute';
import type { DisputeProcessor, DisputeProcessors, EvidenceReceipt } from './ports';

/** What sandbox evidence says to decide it (Stripe's test evidence convention, in `uncategorized_text`). */
export const SANDBOX_EVIDENCE_MARKERS = { won: 'winning_evidence', lost: 'losing_evidence' } as const;

/**
 * The sandbox processor's side of disputes: submitted evidence whose `uncategorized_text` contains
 * `winning_evidence` is won, `losing_evidence` lost, `decisionDelayMs` later (the outcome sweep applies
 * it); anything else stays under review until the sandbox won/lost helper decides it. Live disputes
 * have no processor yet: submitting evidence for one is refused, as live payments are.
 */
export class SandboxDisputeProcessors implements DisputeProcessors {
  constructor(private readonly decisionDelayMs = 2_000) {}

  forMode(mode: Mode): DisputeProcessor {
    if (mode === 'sandbox') {
      // Accepting asks the sandbox processor nothing: the dispute just closes lost.
      return { submitEvidence: async (d) => this.sandboxReceipt(d), accept: async () => undefined };
    }
    const notConfigured = async (): Promise<never> => {
      throw new PlatformError('GATEWAY_NOT_CONFIGURED', undefined, { detail: 'no live dispute processor configured' });
    };
    return { submitEvidence: notConfigured, accept: notConfigured };
  }

  private sandboxReceipt(d: DisputeRecord): EvidenceReceipt {
    const text = d.evidence.uncategorized_text ?? '';
    const status = text.includes(SANDBOX_EVIDENCE_MARKERS.won)
      ? 'won'
      : text.includes(SANDBOX_EVIDENCE_MARKERS.lost)
        ? 'lost'
        : null;
    return { scheduled_outcome: status ? { status, after_ms: this.decisionDelayMs } : null };
  }
}
