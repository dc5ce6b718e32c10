import type { Mode } from '@ppay/kernel';
import type { ChargeFound, ChargeOutcome, OffSessionCharge, PaymentsPort } from './ports';

/**
 * Payments as subscriptions sees it: one charge per idempotency key, ever. `decline` declines every charge
 * made without the customer (renewals) with that code; `failNext` calls throw (payments unreachable);
 * `pending` keys are found in flight by `findCharge` (their processor has not answered yet).
 */
export class FakePayments implements PaymentsPort {
  readonly charges = new Map<string, ChargeOutcome & { request: OffSessionCharge }>();
  readonly calls: OffSessionCharge[] = [];
  /** The keys `findCharge` was asked for, in order. */
  readonly lookups: string[] = [];
  readonly pending = new Set<string>();
  decline: string | null = null;
  failNext = 0;
  async chargeSaved(_merchantId: number, _mode: Mode, c: OffSessionCharge): Promise<ChargeOutcome> {
    this.calls.push(c);
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('payments unavailable');
    }
    const existing = this.charges.get(c.idempotency_key);
    this.pending.delete(c.idempotency_key); // a repeat of a charge in flight gets its answer
    if (existing)
      return { charge_id: existing.charge_id, status: existing.status, decline_code: existing.decline_code };
    const approved = c.customer_present || this.decline === null;
    const outcome: ChargeOutcome = {
      charge_id: `ch_${this.charges.size + 1}`,
      status: approved ? 'succeeded' : 'failed',
      decline_code: approved ? null : this.decline,
    };
    this.charges.set(c.idempotency_key, { ...outcome, request: c });
    return outcome;
  }
  async findCharge(_merchantId: number, _mode: Mode, key: string): Promise<ChargeFound | null> {
    this.lookups.push(key);
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('payments unavailable');
    }
    const c = this.charges.get(key);
    if (!c) return null;
    const status = this.pending.has(key) ? 'pending' : c.status;
    return { charge_id: c.charge_id, status, decline_code: c.decline_code, amount: c.request.price };
  }
  async saveTestCard(_merchantId: number, _mode: Mode, cardNumber: string) {
    return { payment_method_id: 'pm_test', brand: 'visa', last4: cardNumber.slice(-4) };
  }
  succeeded(): number {
    return [...this.charges.values()].filter((c) => c.status === 'succeeded').length;
  }
}
