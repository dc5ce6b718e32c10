import { newRequestId } from '@ppay/kernel';
import { callerToMetadata, ServiceClient } from '@ppay/runtime';
import { loadPlatformProto, type types } from '@ppay/proto';
import type { NewMerchant } from '@ppay/devstack';
import { http, startTestPlatform, type TestPlatform } from './platform';
import { aroundSuite, type SuiteWorld } from './suite-world';

/**
 * What the marketplace suites (spec 2.6, 3.5, 4.1 split lookup, 4.9: marketplace setup, sub-merchants
 * and commission) share: a world with the platform, the marketplace's gRPC client and the helpers.
 */
export const email = () => `sub${Date.now()}${Math.random().toString(36).slice(2, 8)}@example.com`;

/** One suite file's platform, started under the suite's name; the fields are set once its beforeAll has run. */
export class MarketplaceWorld implements SuiteWorld {
  t!: TestPlatform;
  grpc!: ServiceClient<types.marketplace.MarketplaceServiceClient>;

  constructor(readonly suite: string) {}

  readonly call = (key: string, method: string, url: string, body?: unknown) =>
    http(this.t.url, method, `/api/v1/partner${url}`, { headers: { 'x-api-key': key }, body });
  readonly resolveSplit = (operator: number, sub: number, mode: 'sandbox' | 'live' = 'sandbox') =>
    this.grpc.call(
      'ResolveSplit',
      { operator_merchant_id: operator, sub_merchant_id: sub },
      callerToMetadata({ requestId: newRequestId(), auth: 'internal', mode }),
    );
  readonly operatorWithMarketplace = async (defaultRate?: number): Promise<NewMerchant> => {
    const op = await this.t.merchant({ marketplace: true });
    const res = await this.call(op.api_key, 'POST', '/marketplace/setup', {
      marketplace_name: 'Crafts',
      ...(defaultRate === undefined ? {} : { default_commission_rate: defaultRate }),
    });
    expect(res.status).toBe(200);
    return op;
  };

  async start(): Promise<void> {
    this.t = await startTestPlatform(this.suite);
    const proto = loadPlatformProto().ppay;
    this.grpc = new ServiceClient(
      'marketplace',
      proto.marketplace.v1.MarketplaceService,
      this.t.platform.grpcAddress('marketplace'),
      { deadlineMs: 10_000 },
    );
  }

  async stop(): Promise<void> {
    this.grpc?.close();
    await this.t?.stop();
  }
}

/** The world of one suite file: call it once in the file's top describe, which starts and stops it. */
export const marketplaceWorld = (suite: string): MarketplaceWorld => aroundSuite(new MarketplaceWorld(suite));
