import {
  money,
  outboxEvent,
  PlatformError,
  prefixedId,
  SUBJECTS,
  type Mode,
  type Money,
  type SubscriptionFrequency,
} from '@ppay/kernel';
import { newCharge, type ChargeRecord, type CustomerDetails, type MetadataValue } from './charge';
import type { PaymentMethodRecord, SavedCard } from './payment-method';
import { feeBreakdown, type FeeSchedule } from './fees';
import { paymentOutcome } from './outcomes';
import type {
  ChargeRepository,
  CheckoutProcessor,
  MerchantDirectory,
  PaymentMethodRepository,
  ProcessorRegistry,
} from './ports';
import { processorGroupFor } from './processors';

export interface OffSessionCharge {
  payment_method_id: string;
  price: Money;
  /** Derived by the caller from (subscription, period start, attempt): one charge per key, ever. */
  idempotency_key: string;
  product: { id: number | null; title: string; type: string };
  frequency: SubscriptionFrequency | null;
  metadata: Record<string, MetadataValue>;
  customer: Partial<CustomerDetails>;
  /** The customer is paying now (a first payment), so the card behaves as on the hosted page. */
  customer_present?: boolean;
}

export interface OffSessionResult {
  charge: ChargeRecord;
  replayed: boolean;
}

const MAX_KEY = 200;

export class PaymentMethodService {
  constructor(
    private readonly deps: {
      methods: PaymentMethodRepository;
      charges: ChargeRepository;
      merchants: MerchantDirectory;
      processor: CheckoutProcessor;
      processors: ProcessorRegistry;
    },
    private readonly options: { feeSchedule: FeeSchedule },
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A checkout session paid with this card: save it for renewals (one method per session, first save wins). */
  async saveFromCheckout(input: {
    session_id: string;
    merchant_id: number;
    mode: Mode;
    customer_email: string;
    card: SavedCard;
  }): Promise<PaymentMethodRecord> {
    return this.deps.methods.insertOrGetBySession({
      payment_method_id: prefixedId('pm'),
      merchant_id: input.merchant_id,
      mode: input.mode,
      customer_email: input.customer_email,
      card: input.card,
      origin_session_id: input.session_id,
      created_at: this.now(),
    });
  }

  /** Sandbox helper: a test card saved without a checkout (declining cards are refused, as a checkout would). */
  async createSandbox(merchantId: number, mode: Mode, cardNumber: string, email: string): Promise<PaymentMethodRecord> {
    if (mode !== 'sandbox') {
      throw new PlatformError('PERMISSION_DENIED', 'Sandbox test helpers are only available with sandbox keys');
    }
    const saved = this.deps.processor.saveTestCard(cardNumber);
    const record: PaymentMethodRecord = {
      payment_method_id: prefixedId('pm'),
      merchant_id: merchantId,
      mode,
      customer_email: email,
      card: saved,
      origin_session_id: null,
      created_at: this.now(),
    };
    await this.deps.methods.insert(record);
    return record;
  }

  /**
   * Charges a saved method off-session and answers the charge's final status. Idempotent by key: the
   * charge's reference is the key (unique per merchant and mode), so a repeat — a retry after a crash,
   * a redelivery, a second scheduler — finds the same charge and never makes a second one. A charge left
   * `pending` by a crash is finished by the repeat (the sandbox processor is deterministic; a live one
   * would get the same key).
   */
  async chargeOffSession(merchantId: number, mode: Mode, r: OffSessionCharge): Promise<OffSessionResult> {
    const key = r.idempotency_key.trim();
    if (!key || key.length > MAX_KEY) {
      throw new PlatformError('VALIDATION_FAILED', `idempotency_key must be 1 to ${MAX_KEY} characters`, {
        param: 'idempotency_key',
      });
    }
    const method = await this.deps.methods.findForMerchant(merchantId, mode, r.payment_method_id);
    if (!method) throw new PlatformError('PAYMENT_METHOD_NOT_FOUND', undefined, { param: 'payment_method_id' });
    // The insert is the idempotency check (unique reference): no read before it on the normal path.
    let charge: ChargeRecord;
    {
      const merchant = await this.deps.merchants.get(merchantId);
      const group = processorGroupFor(r.price.currency);
      const fee = feeBreakdown(this.options.feeSchedule, group, r.price, merchant.customer_pays_fees);
      const draft = newCharge(
        {
          merchant_id: merchantId,
          mode,
          reference: key,
          status: 'pending',
          processor_group: group,
          payment_gateway: this.deps.processors.adapterFor(group, mode).id,
          amount: r.price,
          total: r.price,
          conversion: null,
          fee_details: fee,
          customer: {
            email: r.customer.email || method.customer_email,
            first_name: r.customer.first_name ?? '',
            last_name: r.customer.last_name ?? '',
            country: r.customer.country || 'Unknown',
          },
          metadata: r.metadata,
          description: r.product.title,
          callback_url: '',
          sub_merchant_id: null,
          split: null,
        },
        this.now(),
      );
      const saved = await this.deps.charges.insertOrGetByReference(draft);
      if (!saved.created && saved.charge.status !== 'pending') return { charge: saved.charge, replayed: true };
      charge = saved.charge;
    }
    const result = await this.deps.processor.chargeSaved(
      {
        charge_id: charge.charge_id,
        group: charge.processor_group,
        mode,
        amount: money(charge.fee_details.total_amount, charge.amount.currency),
      },
      method.card,
      { customerPresent: r.customer_present ?? false },
    );
    const at = this.now();
    const status = result.approved ? 'succeeded' : 'failed';
    const reason = result.approved ? null : result.decline_code;
    const outcome = {
      ...paymentOutcome(charge, status, reason, at),
      payment_type: 'subscription' as const,
      product: r.product,
      subscription_frequency_key: r.frequency,
    };
    const event = outboxEvent(result.approved ? SUBJECTS.paymentSucceeded : SUBJECTS.paymentFailed, outcome, {
      merchantId,
      mode,
    });
    const completed = await this.deps.charges.complete(charge.charge_id, status, reason, at, event);
    if (completed) return { charge: completed, replayed: false };
    // Finished concurrently by a repeat of this call: answer with what it became.
    const now = await this.deps.charges.findByReference(merchantId, mode, key);
    if (!now || now.status === 'pending') throw new PlatformError('CONFLICT', 'The renewal charge is being processed');
    return { charge: now, replayed: true };
  }
}
