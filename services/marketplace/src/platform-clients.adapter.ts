import { newRequestId, type Mode } from '@ppay/kernel';
import { callerToMetadata, RemoteCallError, ServiceClient, toWire, type PlatformMetrics } from '@ppay/runtime';
import { loadPlatformProto, type types } from '@ppay/proto';
import type { GatewayAccountOutcome } from './deletions/merchant-deletion';
import type { GatewayAccounts } from './deletions/ports';
import type { BalanceView, PayoutAccountFacts, PayoutAccounts, PayoutView, WalletPayouts } from './payouts/ports';

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

  async balances(merchantId: number, mode: Mode): Promise<BalanceView[]> {
    const res = await remote(() =>
      this.client.call('GetWalletBalances', { merchant_id: merchantId, mode }, internal(mode)),
    );
    return res.balances;
  }

  createPayout(input: Parameters<WalletPayouts['createPayout']>[0]): Promise<PayoutView> {
    return remote(() => this.client.call('CreatePayout', toWire(input), internal(input.mode)));
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

/**
 * kyc, one client for everything marketplace asks of it: the payout account (never the clear account
 * number) and, for delete merchant, closing the connected gateway account kyc owns.
 */
export class GrpcKyc implements PayoutAccounts, GatewayAccounts {
  private readonly client: ServiceClient<types.kyc.KycServiceClient>;

  constructor(
    address: string,
    metrics: PlatformMetrics,
    private readonly payoutAccountDeadlineMs = 3_000,
  ) {
    this.client = new ServiceClient('kyc', loadPlatformProto().ppay.kyc.v1.KycService, address, {
      deadlineMs: 5_000,
      breaker,
      metrics,
    });
  }

  async account(merchantId: number, mode: Mode): Promise<PayoutAccountFacts> {
    const deadline = new Date(Date.now() + this.payoutAccountDeadlineMs);
    const res = await remote(() =>
      this.client.call('GetPayoutAccount', { merchant_id: merchantId, mode }, internal(mode), { deadline }),
    );
    return {
      kyc_status: res.kyc_status,
      payout_eligible: res.payout_eligible,
      currency: res.currency,
      payment_gateway: res.payment_gateway,
      payout_method: res.payout_method,
      destination: {
        kind: res.payout_method === 'connected_account' ? 'connected_account' : 'bank_account',
        bank_name: res.bank_name ?? null,
        institution_id: res.institution_id ?? null,
        account_number_masked: res.account_number_masked ?? null,
        account_name: res.account_name ?? null,
        gateway_account_id: res.gateway_account_id ?? null,
        fingerprint: res.destination_fingerprint ?? null,
      },
    };
  }

  async closeForDeletion(merchantId: number, mode: Mode, deadline?: Date): Promise<GatewayAccountOutcome> {
    const res = await remote(() =>
      this.client.call('CloseGatewayAccount', { merchant_id: merchantId, mode }, internal(mode), { deadline }),
    );
    return {
      found: res.found,
      closed: res.closed,
      available: res.available ?? null,
      pending: res.pending ?? null,
      gateway_account_id: res.gateway_account_id ?? null,
    };
  }

  close(): void {
    this.client.close();
  }
}
