import { newRequestId, PlatformError, TtlCache, type Mode } from '@ppay/kernel';
import { callerToMetadata, RemoteCallError, ServiceClient, type PlatformMetrics } from '@ppay/runtime';
import { loadPlatformProto, type types } from '@ppay/proto';
import type { SubMerchant, SubMerchantDirectory } from './ports';

/**
 * marketplace's DescribeSubMerchant, asked on every KYC and payout call: who may act on a merchant is
 * an authorisation decision, so it is read from the relationship document (the source of truth), not
 * from a projection that could still say "active" after a suspension. KYC calls are onboarding-rate,
 * so the extra hop costs nothing that matters; an unavailable marketplace answers 503 like any other.
 */
export class GrpcSubMerchantDirectory implements SubMerchantDirectory {
  private readonly client: ServiceClient<types.marketplace.MarketplaceServiceClient>;
  /** Operator flags for the banks list (reference data): 30 s, so the list stays a memory read. */
  private readonly operators = new TtlCache<number, boolean>(10_000);
  private static readonly OPERATOR_TTL_MS = 30_000;

  constructor(address: string, metrics: PlatformMetrics, deadlineMs = 3_000) {
    this.client = new ServiceClient(
      'marketplace',
      loadPlatformProto().ppay.marketplace.v1.MarketplaceService,
      address,
      {
        deadlineMs,
        breaker: {
          errorThresholdPercentage: 50,
          resetTimeoutMs: 5_000,
          rollingCountTimeoutMs: 10_000,
          volumeThreshold: 5,
        },
        metrics,
      },
    );
  }

  async activeSubMerchant(operatorId: number, merchantId: number, mode: Mode, deadline?: Date): Promise<SubMerchant> {
    let profile: types.marketplace.SubMerchantProfile__Output;
    try {
      profile = await this.client.call(
        'DescribeSubMerchant',
        { operator_merchant_id: operatorId, sub_merchant_id: merchantId },
        callerToMetadata({ requestId: newRequestId(), auth: 'internal', mode }),
        { deadline },
      );
    } catch (err) {
      throw err instanceof RemoteCallError ? err.toPlatformError() : err;
    }
    // Pending (invited) and suspended sub-merchants are "not active" (spec 7.2, 7.4).
    if (!profile.active) throw new PlatformError('RELATIONSHIP_NOT_FOUND');
    const m = profile.merchant;
    return {
      marketplace_id: profile.marketplace_id,
      merchant: m
        ? { id: m.id, country: m.country, baseline_currency: m.baseline_currency, business_name: m.business_name }
        : null,
    };
  }

  isOperator(merchantId: number, deadline?: Date): Promise<boolean> {
    return this.operators.getOrLoad(
      merchantId,
      async () => {
        try {
          const account = await this.client.call(
            'GetAccount',
            {},
            callerToMetadata({ requestId: newRequestId(), auth: 'internal', merchantId }),
            { deadline },
          );
          return account.is_marketplace_operator;
        } catch (err) {
          if (err instanceof RemoteCallError && err.errorCode === 'MERCHANT_NOT_FOUND') return false;
          throw err instanceof RemoteCallError ? err.toPlatformError() : err;
        }
      },
      () => GrpcSubMerchantDirectory.OPERATOR_TTL_MS,
    );
  }

  close(): void {
    this.client.close();
  }
}
