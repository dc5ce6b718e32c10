import { money, newRequestId, PlatformError, type ErrorCode, type Mode, type Money } from '@ppay/kernel';
import { callerToMetadata, RemoteCallError, ServiceClient, type PlatformMetrics } from '@ppay/runtime';
import { loadPlatformProto, type types } from '@ppay/proto';
import type { FxConverter, FxQuote } from './charges/ports';
import type { CatalogueProduct, ProductLookup, StockHolds, StockLine } from './checkout/ports';
import type { CurrentDestination, PayoutDestinations } from './payouts/ports';
import type { StockReturns } from './orders/ports';
import type { AccountStatusAnswer, ConnectedAccountStatuses } from './processors/connected-account-events';
import type { ConnectedAccountEvent } from './processors/processor-event';
import type { SplitResolver, SplitTerms } from './ports';

/**
 * The gRPC clients of payments' sibling services: fx-pricing (conversions, catalogue products, stock),
 * marketplace (splits) and kyc (payout accounts, connected account status events). One client per port, each with its own breaker.
 */

/** fx-pricing's answers that mean "this conversion cannot be made" (a 400 for the partner). */
const CONVERSION_REFUSALS = new Set<ErrorCode>(['UNSUPPORTED_CURRENCY', 'CONVERSION_FAILED', 'VALIDATION_FAILED']);

const breaker = {
  errorThresholdPercentage: 50,
  resetTimeoutMs: 5_000,
  rollingCountTimeoutMs: 10_000,
  volumeThreshold: 5,
};

function fxPricingClient(address: string, metrics: PlatformMetrics, deadlineMs: number) {
  const service = loadPlatformProto().ppay.fxpricing.v1.FxPricingService;
  return new ServiceClient<types.fxpricing.FxPricingServiceClient>('fx-pricing', service, address, {
    deadlineMs,
    breaker,
    metrics,
  });
}

/** payments calling on its own behalf, in the mode of the payment (and for the merchant, when it acts for one). */
const internalCall = (mode: Mode, merchantId?: number) =>
  callerToMetadata({ requestId: newRequestId(), auth: 'internal', merchantId, mode });

/** A sibling's answer as the platform error it carries (its code, or its gRPC status); anything else as it is. */
const asPlatformError = (err: unknown) => (err instanceof RemoteCallError ? err.toPlatformError() : err);

/** fx-pricing's Convert, as the charge path needs it. */
export class GrpcFxConverter implements FxConverter {
  private readonly client: ServiceClient<types.fxpricing.FxPricingServiceClient>;

  constructor(address: string, metrics: PlatformMetrics, deadlineMs = 3_000) {
    this.client = fxPricingClient(address, metrics, deadlineMs);
  }

  async convert(from: Money, toCurrency: string, mode: Mode, deadline?: Date): Promise<FxQuote> {
    try {
      const res = await this.client.call('Convert', { from, to_currency: toCurrency }, internalCall(mode), {
        deadline,
      });
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
      throw asPlatformError(err);
    }
  }

  close(): void {
    this.client.close();
  }
}

/**
 * A session's catalogue product, from fx-pricing's GetProduct on the merchant's behalf (another
 * merchant's product, or another mode's, is PRODUCT_NOT_FOUND).
 */
export class GrpcProductLookup implements ProductLookup {
  private readonly client: ServiceClient<types.fxpricing.FxPricingServiceClient>;

  constructor(address: string, metrics: PlatformMetrics, deadlineMs = 3_000) {
    this.client = fxPricingClient(address, metrics, deadlineMs);
  }

  async product(merchantId: number, mode: Mode, productId: number): Promise<CatalogueProduct> {
    try {
      const p = await this.client.call('GetProduct', { product_id: productId }, internalCall(mode, merchantId));
      const moneyOf = (m: types.common.Money__Output | null | undefined) => money(Number(m!.amount), m!.currency);
      return {
        name: p.title,
        type: p.type,
        installments_allowed: p.installments_allowed,
        price: moneyOf(p.price),
        variations: p.variations.map((v) => ({
          variation_id: v.variation_id,
          name: v.name,
          price: v.price ? moneyOf(v.price) : null,
        })),
        shipping: p.shipping ? { fee: moneyOf(p.shipping.fee), countries: p.shipping.countries } : null,
        for_sale: p.active && !p.archived_at,
      };
    } catch (err) {
      if (err instanceof RemoteCallError && err.errorCode === 'PRODUCT_NOT_FOUND')
        throw new PlatformError('PRODUCT_NOT_FOUND', undefined, { param: 'product_id' });
      throw asPlatformError(err);
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
    const service = loadPlatformProto().ppay.marketplace.v1.MarketplaceService;
    this.client = new ServiceClient('marketplace', service, address, { deadlineMs, breaker, metrics });
  }

  async resolve(operatorMerchantId: number, subMerchantId: number, mode: Mode, deadline?: Date): Promise<SplitTerms> {
    try {
      return await this.client.call(
        'ResolveSplit',
        { operator_merchant_id: operatorMerchantId, sub_merchant_id: subMerchantId },
        internalCall(mode),
        { deadline },
      );
    } catch (err) {
      throw asPlatformError(err);
    }
  }

  close(): void {
    this.client.close();
  }
}

/**
 * fx-pricing's stock of physical products: checkout holds (by session) and order returns (by order),
 * each idempotent by its key on fx-pricing's side.
 */
export class GrpcStock implements StockHolds, StockReturns {
  private readonly client: ServiceClient<types.fxpricing.FxPricingServiceClient>;

  constructor(address: string, metrics: PlatformMetrics, deadlineMs = 3_000) {
    this.client = fxPricingClient(address, metrics, deadlineMs);
  }

  async hold(req: StockLine, holdId: string): Promise<'held' | 'unlimited' | 'sold_out'> {
    try {
      const res = await this.client.call(
        'HoldStock',
        { ...wireLine(req), hold_id: holdId },
        internalCall(req.mode, req.merchant_id),
      );
      return res.outcome as 'held' | 'unlimited' | 'sold_out';
    } catch (err) {
      throw asPlatformError(err);
    }
  }

  async settle(productId: number, holdId: string, sold: boolean): Promise<void> {
    try {
      await this.client.call(
        sold ? 'CommitStock' : 'ReleaseStock',
        { product_id: productId, hold_id: holdId },
        internalCall('sandbox'),
      );
    } catch (err) {
      throw asPlatformError(err);
    }
  }

  async returnStock(orderId: string, line: StockLine) {
    try {
      await this.client.call(
        'ReturnStock',
        { ...wireLine(line), hold_id: orderId },
        internalCall(line.mode, line.merchant_id),
      );
    } catch (err) {
      throw asPlatformError(err);
    }
  }

  close(): void {
    this.client.close();
  }
}

const wireLine = (l: StockLine) => ({
  merchant_id: l.merchant_id,
  mode: l.mode,
  product_id: l.product_id,
  variation_id: l.variation_id ?? '',
  quantity: l.quantity,
});

/** kyc's GetPayoutAccount: the payout account and KYC status now, which a payout's approval and payment check. */
export class GrpcPayoutDestinations implements PayoutDestinations {
  private readonly client: ServiceClient<types.kyc.KycServiceClient>;

  constructor(address: string, metrics: PlatformMetrics, deadlineMs = 3_000) {
    const service = loadPlatformProto().ppay.kyc.v1.KycService;
    this.client = new ServiceClient('kyc', service, address, { deadlineMs, breaker, metrics });
  }

  async current(merchantId: number, mode: Mode): Promise<CurrentDestination> {
    try {
      const account = await this.client.call('GetPayoutAccount', { merchant_id: merchantId, mode }, internalCall(mode));
      const region = account.gateway_region;
      return {
        found: true,
        kyc_status: account.kyc_status,
        fingerprint: account.destination_fingerprint ?? null,
        gateway_region: region === 'US' || region === 'EU' ? region : null,
      };
    } catch (err) {
      const code = err instanceof RemoteCallError ? err.errorCode : undefined;
      if (code === 'KYC_NOT_SUBMITTED' || code === 'PAYOUT_NOT_SET_UP' || code === 'PAYOUT_ACCOUNT_NOT_FOUND') {
        return { found: false, why: code };
      }
      throw asPlatformError(err);
    }
  }

  close(): void {
    this.client.close();
  }
}

/** kyc's ApplyConnectedAccountEvent, as the processor inbox's connected account applier needs it. */
export class GrpcConnectedAccountStatuses implements ConnectedAccountStatuses {
  private readonly client: ServiceClient<types.kyc.KycServiceClient>;

  constructor(address: string, metrics: PlatformMetrics, deadlineMs = 3_000) {
    const service = loadPlatformProto().ppay.kyc.v1.KycService;
    this.client = new ServiceClient('kyc', service, address, { deadlineMs, breaker, metrics });
  }

  async apply(e: ConnectedAccountEvent): Promise<AccountStatusAnswer> {
    try {
      const res = await this.client.call(
        'ApplyConnectedAccountEvent',
        {
          gateway_account_id: e.account_reference,
          event_id: e.event_id,
          event_type: e.type,
          occurred_at: e.occurred_at,
          charges_enabled: e.charges_enabled,
          payouts_enabled: e.payouts_enabled,
          details_submitted: e.details_submitted,
          currently_due: e.currently_due,
          past_due: e.past_due,
          eventually_due: e.eventually_due,
          disabled_reason: e.disabled_reason ?? undefined,
          deauthorized: e.deauthorized,
        },
        internalCall(e.mode),
      );
      return {
        outcome: res.outcome as AccountStatusAnswer['outcome'],
        submission_id: Number(res.submission_id) || null,
        status: res.status || null,
      };
    } catch (err) {
      throw asPlatformError(err);
    }
  }

  close(): void {
    this.client.close();
  }
}
