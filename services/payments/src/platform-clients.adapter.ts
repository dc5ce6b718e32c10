import { money, newRequestId, PlatformError, type ErrorCode, type Mode, type Money } from '@ppay/kernel';
import { callerToMetadata, RemoteCallError, ServiceClient, type PlatformMetrics } from '@ppay/runtime';
import { loadPlatformProto, type types } from '@ppay/proto';
import type { FxConverter, FxQuote, SplitResolver, SplitTerms } from './ports';

/** fx-pricing's answers that mean "this conversion cannot be made" (a 400 for the partner). */
const CONVERSION_REFUSALS = new Set<ErrorCode>(['UNSUPPORTED_CURRENCY', 'CONVERSION_FAILED', 'VALIDATION_FAILED']);

const breaker = {
  errorThresholdPercentage: 50,
  resetTimeoutMs: 5_000,
  rollingCountTimeoutMs: 10_000,
  volumeThreshold: 5,
};

/** fx-pricing's Convert, as the charge path needs it. */
export class GrpcFxConverter implements FxConverter {
  private readonly client: ServiceClient<types.fxpricing.FxPricingServiceClient>;

  constructor(address: string, metrics: PlatformMetrics, deadlineMs = 3_000) {
    this.client = new ServiceClient('fx-pricing', loadPlatformProto().ppay.fxpricing.v1.FxPricingService, address, {
      deadlineMs,
      breaker,
      metrics,
    });
  }

  async convert(from: Money, toCurrency: string, mode: Mode, deadline?: Date): Promise<FxQuote> {
    try {
      const res = await this.client.call(
        'Convert',
        { from, to_currency: toCurrency },
        callerToMetadata({ requestId: newRequestId(), auth: 'internal', mode }),
        { deadline },
      );
      return {
        result: money(Number(res.result!.amount), res.result!.currency),
        rate: res.rate,
        rate_decimal: res.rate_decimal,
        source: res.source,
        surcharge_percent: res.surcharge_percent,
      };
    } catch (err) {
      // Only fx-pricing's own "no such conversion" answers are the partner's problem; an outage, a
      // timeout or a bug stays ours (5xx, retryable, never stored as the request's final answer).
      if (err instanceof RemoteCallError && err.errorCode && CONVERSION_REFUSALS.has(err.errorCode)) {
        throw new PlatformError('CONVERSION_FAILED', `Unable to convert from ${from.currency} to ${toCurrency}`, {
          param: 'currency',
          cause: err,
        });
      }
      throw err instanceof RemoteCallError ? err.toPlatformError() : err;
    }
  }

  close(): void {
    this.client.close();
  }
}

/** marketplace's ResolveSplit: is this sub-merchant active under the operator, at what commission. */
export class GrpcSplitResolver implements SplitResolver {
  private readonly client: ServiceClient<types.marketplace.MarketplaceServiceClient>;

  constructor(address: string, metrics: PlatformMetrics, deadlineMs = 3_000) {
    this.client = new ServiceClient(
      'marketplace',
      loadPlatformProto().ppay.marketplace.v1.MarketplaceService,
      address,
      {
        deadlineMs,
        breaker,
        metrics,
      },
    );
  }

  async resolve(operatorMerchantId: number, subMerchantId: number, mode: Mode, deadline?: Date): Promise<SplitTerms> {
    try {
      return await this.client.call(
        'ResolveSplit',
        { operator_merchant_id: operatorMerchantId, sub_merchant_id: subMerchantId },
        callerToMetadata({ requestId: newRequestId(), auth: 'internal', mode }),
        { deadline },
      );
    } catch (err) {
      throw err instanceof RemoteCallError ? err.toPlatformError() : err;
    }
  }

  close(): void {
    this.client.close();
  }
}
