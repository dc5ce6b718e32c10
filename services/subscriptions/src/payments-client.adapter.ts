import { money, newRequestId, type Mode } from '@ppay/kernel';
import {
  callerToMetadata,
  DEFAULT_BREAKER_OPTIONS,
  RemoteCallError,
  ServiceClient,
  type PlatformMetrics,
} from '@ppay/runtime';
import { loadPlatformProto, type types } from '@ppay/proto';
import type { ChargeFound, ChargeOutcome, OffSessionCharge, PaymentsPort } from './ports';

/** payments over gRPC, on the merchant's behalf (internal caller with the subscription's merchant and mode). */
export class GrpcPayments implements PaymentsPort {
  private readonly client: ServiceClient<types.payments.PaymentsServiceClient>;

  constructor(address: string, metrics: PlatformMetrics, deadlineMs = 10_000) {
    this.client = new ServiceClient('payments', loadPlatformProto().ppay.payments.v1.PaymentsService, address, {
      deadlineMs,
      breaker: { ...DEFAULT_BREAKER_OPTIONS, volumeThreshold: 10 },
      metrics,
    });
  }

  private metadata(merchantId: number, mode: Mode) {
    return callerToMetadata({ requestId: newRequestId(), auth: 'internal', merchantId, mode });
  }

  async chargeSaved(merchantId: number, mode: Mode, c: OffSessionCharge, deadline?: Date): Promise<ChargeOutcome> {
    const metadata: Record<string, types.common.MetadataValue> = {};
    for (const [k, v] of Object.entries(c.metadata)) {
      metadata[k] =
        typeof v === 'string' ? { string_value: v } : typeof v === 'number' ? { number_value: v } : { bool_value: v };
    }
    const res = await this.call(() =>
      this.client.call(
        'ChargePaymentMethod',
        {
          payment_method_id: c.payment_method_id,
          price: c.price,
          idempotency_key: c.idempotency_key,
          product: { ...(c.product.id !== null && { id: c.product.id }), title: c.product.title, type: c.product.type },
          subscription_frequency_key: c.frequency ?? '',
          ...(c.installment && { installment: c.installment }),
          metadata,
          customer: c.customer,
          customer_present: c.customer_present,
        },
        this.metadata(merchantId, mode),
        deadline ? { deadline } : {},
      ),
    );
    return {
      charge_id: res.charge_id,
      status: res.status === 'succeeded' ? 'succeeded' : 'failed',
      decline_code: res._decline_code ? (res.decline_code ?? null) : null,
    };
  }

  /**
   * By reference: an off-session charge's reference is its idempotency key, and the listing's reference
   * filter is an indexed equality, so one row answers.
   */
  async findCharge(
    merchantId: number,
    mode: Mode,
    idempotencyKey: string,
    deadline?: Date,
  ): Promise<ChargeFound | null> {
    const res = await this.call(() =>
      this.client.call(
        'ListCharges',
        { reference: idempotencyKey, limit: 1 },
        this.metadata(merchantId, mode),
        deadline ? { deadline } : {},
      ),
    );
    const c = res.charges[0];
    if (!c) return null;
    return {
      charge_id: c.charge_id,
      status: c.status === 'succeeded' || c.status === 'failed' ? c.status : 'pending',
      decline_code: c._failure_reason ? (c.failure_reason ?? null) : null,
      amount: money(Number(c.amount?.amount ?? 0), c.amount?.currency ?? ''),
    };
  }

  async saveTestCard(merchantId: number, mode: Mode, cardNumber: string, email: string) {
    const res = await this.call(() =>
      this.client.call(
        'CreateSandboxPaymentMethod',
        { card_number: cardNumber, customer_email: email },
        this.metadata(merchantId, mode),
      ),
    );
    return { payment_method_id: res.payment_method_id, brand: res.brand, last4: res.last4 };
  }

  close(): void {
    this.client.close();
  }

  /** payments' catalogue errors (a partner's mistake) reach the partner as they are. */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof RemoteCallError && err.errorCode) throw err.toPlatformError();
      throw err;
    }
  }
}
