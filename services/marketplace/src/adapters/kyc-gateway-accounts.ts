import {
  callerToMetadata,
  newRequestId,
  RemoteCallError,
  ServiceClient,
  type Mode,
  type PlatformMetrics,
} from '@ppay/kernel';
import { loadPlatformProto, type types } from '@ppay/proto';
import type { GatewayAccountOutcome, GatewayAccounts } from '../domain/deletions';

/** kyc's CloseGatewayAccount (kyc owns the connected gateway account, made by its KYC route). */
export class GrpcGatewayAccounts implements GatewayAccounts {
  private readonly client: ServiceClient<types.kyc.KycServiceClient>;

  constructor(address: string, metrics: PlatformMetrics, deadlineMs = 5_000) {
    this.client = new ServiceClient('kyc', loadPlatformProto().ppay.kyc.v1.KycService, address, {
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

  async closeForDeletion(merchantId: number, mode: Mode, deadline?: Date): Promise<GatewayAccountOutcome> {
    try {
      const res = await this.client.call(
        'CloseGatewayAccount',
        { merchant_id: merchantId, mode },
        callerToMetadata({ requestId: newRequestId(), auth: 'internal', mode }),
        { deadline },
      );
      return {
        found: res.found,
        closed: res.closed,
        available: res.available ?? null,
        pending: res.pending ?? null,
        gateway_account_id: res.gateway_account_id ?? null,
      };
    } catch (err) {
      throw err instanceof RemoteCallError ? err.toPlatformError() : err;
    }
  }

  close(): void {
    this.client.close();
  }
}
