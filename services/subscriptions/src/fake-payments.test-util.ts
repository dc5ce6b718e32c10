import type { Mode } from '@ppay/kernel';
import type { ChargeOutcome, OffSessionCharge, PaymentsPort } from './ports';

/**
 * Payments as subscriptions sees it: one charge per idempotency key, ever. `decline` declines every charge
 * made without the customer (renewals) with that code; `failNext` calls throw (payments unreachable).
 */
export class FakePayments implements PaymentsPort {
  readonly charges = new Map<string, ChargeOutcome & { request: OffSessionCharge }>();
  readonly calls: OffSessionCharge[] = [];
  decline: string | null = null;
  failNext = 0;
  async chargeSaved(_merchantId: number, _mode: Mode, c: OffSessionCharge): Promise<ChargeOutcome> {
    this.calls.push(c);
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('payments unavailable');
    }
    const existing = this.charges.get(c.idempotency_key);
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
  async saveTestCard(_merchantId: number, _mode: Mode, cardNumber: string) {
    return { payment_method_id: 'pm_test', brand: 'visa', last4: cardNumber.slice(-4) };
  }
  succeeded(): number {
    return [...this.charges.values()].filter((c) => c.status === 'succeeded').length;
  }
}
