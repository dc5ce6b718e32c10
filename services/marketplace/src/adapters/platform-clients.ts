import {
  callerToMetadata,
  newRequestId,
  RemoteCallError,
  ServiceClient,
  type Mode,
  type PlatformMetrics,
} from '@ppay/kernel';
import { loadPlatformProto, type types } from '@ppay/proto';
import type { BalanceEntry, PayoutAccountFacts, PayoutAccounts, PayoutView, WalletPayouts } from '../domain/ports';

const breaker = {
  errorThresholdPercentage: 50,
  resetTimeoutMs: 5_000,
  rollingCountTimeoutMs: 10_000,
  volumeThreshold: 5,
};

const internal = (mode: Mode) => callerToMetadata({ requestId: newRequestId(), auth: 'internal', mode });

async function remote<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw err instanceof RemoteCallError ? err.toPlatformError() : err;
  }
}

/** payments' wallets and staged payouts. */
export class GrpcWalletPayouts implements WalletPayouts {
  private readonly client: ServiceClient<types.payments.PaymentsServiceClient>;

  constructor(address: string, metrics: PlatformMetrics, deadlineMs = 5_000) {
    this.client = new ServiceClient('payments', loadPlatformProto().ppay.payments.v1.PaymentsService, address, {
      deadlineMs,
      breaker,
      metrics,
    });
  }

  async balances(merchantId: number, mode: Mode): Promise<BalanceEntry[]> {
    const res = await remote(() =>
      this.client.call('GetWalletBalances', { merchant_id: merchantId, mode }, internal(mode)),
    );
    return res.balances.map((b) => ({
      currency: b.currency,
      balance: Number(b.balance),
      formatted_balance: b.formatted_balance,
      total_credits: Number(b.total_credits),
      total_debits: Number(b.total_debits),
      transaction_count: Number(b.transaction_count),
      available: Number(b.available),
      reserved: Number(b.reserved),
    }));
  }

  createPayout(input: Parameters<WalletPayouts['createPayout']>[0]): Promise<PayoutView> {
    return remote(() => this.client.call('CreatePayout', input, internal(input.mode)));
  }

  approvePayout(merchantId: number, mode: Mode, reference: string, operatorId: number): Promise<PayoutView> {
    return remote(() =>
      this.client.call(
        'ApprovePayout',
        { merchant_id: merchantId, mode, reference, operator_merchant_id: operatorId },
        internal(mode),
      ),
    );
  }

  rejectPayout(merchantId: number, mode: Mode, reference: string, operatorId: number, reason: string) {
    return remote(() =>
      this.client.call(
        'RejectPayout',
        { merchant_id: merchantId, mode, reference, operator_merchant_id: operatorId, reason },
        internal(mode),
      ),
    );
  }

  close(): void {
    this.client.close();
  }
}

/** kyc's payout account (never the clear account number). */
export class GrpcPayoutAccounts implements PayoutAccounts {
  private readonly client: ServiceClient<types.kyc.KycServiceClient>;

  constructor(address: string, metrics: PlatformMetrics, deadlineMs = 3_000) {
    this.client = new ServiceClient('kyc', loadPlatformProto().ppay.kyc.v1.KycService, address, {
      deadlineMs,
      breaker,
      metrics,
    });
  }

  async account(merchantId: number, mode: Mode): Promise<PayoutAccountFacts> {
    const res = await remote(() =>
      this.client.call('GetPayoutAccount', { merchant_id: merchantId, mode }, internal(mode)),
    );
    return {
      kyc_status: res.kyc_status,
      payout_eligible: res.payout_eligible,
      currency: res.currency,
      payment_gateway: res.payment_gateway,
      payout_method: res.payout_method,
    };
  }

  close(): void {
    this.client.close();
  }
}
