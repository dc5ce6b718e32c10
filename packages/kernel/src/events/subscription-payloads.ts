import type { Money } from '../money';
import type { InstallmentInterval } from '../installments';
import type { SubscriptionFrequency } from '../subscriptions';

// Payloads of the SUBSCRIPTIONS stream (subjects in catalogue.ts).

/**
 * Every subscriptions.subscription.* event carries the subscription as it is after the change (spec
 * 6.4: `subscription.created` adds plan, current_period and trial fields), plus what caused it.
 */
export interface SubscriptionEvent {
  subscription_id: string;
  merchant_id: number;
  status: 'pending' | 'active' | 'due' | 'cancelled' | 'paused';
  payment_status: 'none' | 'paid' | 'failed' | 'pending';
  product: { id: number | null; title: string; type: string };
  customer: { email: string; first_name: string; last_name: string };
  plan: { frequency: SubscriptionFrequency; amount: Money; product_id: number | null };
  current_period: { index: number; start: string; end: string } | null;
  trial: { trial_start: string; trial_end: string } | null;
  next_payment_date: string | null;
  access_until: string | null;
  cancel_at_period_end: boolean;
  cancelled_at: string | null;
  pause_reason: string | null;
  dunning: { attempts_left: number; next_retry_at: string | null; decline_reason: string | null };
  checkout_session_id: string | null;
  /** The renewal charge behind subscription.renewed / subscription.payment_failed; null otherwise. */
  charge_id: string | null;
  /** The subscription's clock when it happened (sandbox subscriptions can be advanced: spec-external helper). */
  effective_at: string;
  created_at: string;
}

/**
 * Every subscriptions.installment_plan.* event (created, completed, defaulted, cancelled) carries the
 * plan as it is after the change, with its schedule.
 */
export interface InstallmentPlanEvent {
  plan_id: string;
  merchant_id: number;
  status: 'active' | 'completed' | 'defaulted' | 'cancelled';
  product: { id: number | null; title: string; type: string };
  customer: { email: string; first_name: string; last_name: string };
  total: Money;
  amount_paid: Money;
  amount_remaining: Money;
  count: number;
  interval: InstallmentInterval;
  parts: {
    number: number;
    amount: Money;
    due_at: string;
    status: 'scheduled' | 'pending' | 'retrying' | 'paid' | 'failed' | 'cancelled';
    charge_id: string | null;
    paid_at: string | null;
  }[];
  next_payment_date: string | null;
  checkout_session_id: string;
  completed_at: string | null;
  cancelled_at: string | null;
  defaulted_at: string | null;
  default_reason: 'hard_decline' | 'retries_exhausted' | null;
  /** The plan's clock when it happened (sandbox plans can be advanced). */
  effective_at: string;
  created_at: string;
}
