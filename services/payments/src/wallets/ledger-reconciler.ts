import type { Mode, PaymentOutcome } from '@ppay/kernel';
import { paymentOutcome } from '../charges/payment-outcome';
import { paidCharge, sessionOutcome } from '../checkout/session';
import type { WalletCredits } from './wallet-credits';
import type { LedgerEntry } from './ledger-entry';
import type { ChargeRepository, LedgerRepository, SessionRepository } from '../ports';

export interface Repair {
  source: 'charge' | 'session';
  charge_id: string;
  inserted: LedgerEntry[];
}

/**
 * The safety net under the payment.succeeded consumer: every successful payment (a charge, or a
 * checkout session's payment) is checked once, some minutes after it succeeded, for wallet credits;
 * one the ledger never saw (an event lost in an outage longer than any retry) is credited here,
 * with the same idempotency keys, and counted. Each payment is looked at once: the check is marked
 * on its own document (the check and the mark are two writes; a crash between them checks it again,
 * which the idempotency keys make harmless).
 */
export class LedgerReconciler {
  constructor(
    private readonly deps: {
      charges: ChargeRepository;
      sessions: SessionRepository;
      ledger: LedgerRepository;
      credits: WalletCredits;
    },
    private readonly options: { graceMs: number; batch?: number },
    private readonly now: () => Date = () => new Date(),
  ) {}

  async run(onRepair: (repair: Repair) => void = () => undefined): Promise<number> {
    const now = this.now();
    const before = new Date(now.getTime() - this.options.graceMs);
    const limit = this.options.batch ?? 200;
    let repaired = 0;
    for (const charge of await this.deps.charges.dueForLedgerCheck(before, limit)) {
      const outcome = paymentOutcome(charge, 'succeeded', null, charge.completed_at ?? charge.updated_at);
      if (await this.repair('charge', outcome, charge.mode, onRepair)) repaired++;
      await this.deps.charges.markLedgerChecked(charge.charge_id, now);
    }
    for (const session of await this.deps.sessions.dueForLedgerCheck(before, limit)) {
      if (session.payment) {
        // A session whose charge copy was lost to a crash gets it now (refunds, disputes and lists read it).
        await this.deps.charges.insert(paidCharge(session)!);
        const outcome = sessionOutcome(session, session.payment, session.completed_at ?? session.updated_at);
        if (await this.repair('session', outcome, session.mode, onRepair)) repaired++;
      }
      await this.deps.sessions.markLedgerChecked(session.session_id, now);
    }
    return repaired;
  }

  private async repair(
    source: Repair['source'],
    outcome: PaymentOutcome,
    mode: Mode,
    onRepair: (repair: Repair) => void,
  ): Promise<boolean> {
    if (await this.deps.ledger.hasEntriesFor(outcome.charge_id)) return false;
    const { inserted } = await this.deps.credits.record(outcome, mode, `repair:${outcome.charge_id}`);
    if (!inserted.length) return false;
    onRepair({ source, charge_id: outcome.charge_id, inserted });
    return true;
  }
}
