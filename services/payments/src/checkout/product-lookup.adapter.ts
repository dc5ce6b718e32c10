import { newRequestId, PlatformError, type Mode } from '@ppay/kernel';
import { callerToMetadata, RemoteCallError, ServiceClient, type PlatformMetrics } from '@ppay/runtime';
import { loadPlatformProto, type types } from '@ppay/proto';
import type { ProductLookup } from '../ports';

/**
 * A session's catalogue product, from fx-pricing's GetProductPricing on the merchant's behalf (it
 * answers PRODUCT_NOT_FOUND for another merchant's product). Only the name and type are used.
 */
export class GrpcProductLookup implements ProductLookup {
  private readonly client: ServiceClient<types.fxpricing.FxPricingServiceClient>;

  constructor(address: string, metrics: PlatformMetrics, deadlineMs = 3_000) {
    this.client = new ServiceClient('fx-pricing', loadPlatformProto().ppay.fxpricing.v1.FxPricingService, address, {
      deadlineMs,
      breaker: {
        errorThresholdPercentage: 50,
        resetTimeoutMs: 5_000,
        rollingCountTimeoutMs: 10_000,
        volumeThreshold: 5,
      },
      metrics,
    });
  }

  async product(merchantId: number, mode: Mode, productId: number, currency: string) {
    try {
      const res = await this.client.call(
        'GetProductPricing',
        { product_id: productId, currency },
        callerToMetadata({ requestId: newRequestId(), auth: 'internal', merchantId, mode }),
      );
      return { name: res.product?.name ?? '', type: res.product?.type ?? 'custom' };
    } catch (err) {
      if (err instanceof RemoteCallError && err.errorCode === 'PRODUCT_NOT_FOUND')
        throw new PlatformError('PRODUCT_NOT_FOUND', undefined, { param: 'product_id' });
      throw err instanceof RemoteCallError ? err.toPlatformError() : err;
    }
  }

  close(): void {
    this.client.close();
  }
}
