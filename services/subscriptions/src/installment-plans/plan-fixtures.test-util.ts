import type { InstallmentCheckoutCompleted } from '@ppay/kernel';
import { newInstallmentPlan, type InstallmentPlanDraft, type InstallmentPlanRecord } from './installment-plan';

/** The paid first part of a 3-part monthly plan of ₦3,000.01 (checkout on Jan 31 2026, 10:00 UTC). */
export const PAID_AT = '2026-01-31T10:00:00.000Z';

export const planDraft = (over: Partial<InstallmentPlanDraft> = {}): InstallmentPlanDraft => ({
  id: 'ip_1',
  merchant_id: 7,
  mode: 'sandbox',
  product: { id: 3, title: 'Laptop', type: 'physical' },
  customer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'L', country: 'NG' },
  total: { amount: 300_001, currency: 'NGN' },
  count: 3,
  interval: 'monthly',
  payment_method_id: 'pm_1',
  card: { brand: 'visa', last4: '4242' },
  checkout_session_id: 'cs_1',
  metadata: {},
  first: { charge_id: 'ch_first', paid_at: new Date(PAID_AT) },
  ...over,
});

export const testPlan = (over: Partial<InstallmentPlanDraft> = {}): InstallmentPlanRecord =>
  newInstallmentPlan(planDraft(over));

/** payments.installment_checkout.completed of that plan. */
export const installmentCheckout = (
  over: Partial<InstallmentCheckoutCompleted> = {},
): InstallmentCheckoutCompleted => ({
  session_id: 'cs_1',
  plan_id: 'ip_1',
  merchant_id: 7,
  product: { id: 3, title: 'Laptop', type: 'physical' },
  customer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'L', country: 'NG' },
  total: { amount: 300_001, currency: 'NGN' },
  count: 3,
  interval: 'monthly',
  metadata: {},
  payment_method_id: 'pm_1',
  card: { brand: 'visa', last4: '4242' },
  charge_id: 'ch_first',
  transaction_id: 'txn_first',
  completed_at: PAID_AT,
  ...over,
});
