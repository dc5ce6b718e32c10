import type { Mode, Money } from '@ppay/kernel';
import type { GatewayGroup } from './routing';

/** What payments knows about a merchant (a projection of marketplace's merchants.* events). */
export interface MerchantProfile {
  merchant_id: number;
  country: string;
  baseline_currency: string;
  customer_pays_fees: boolean;
  is_marketplace_operator: boolean;
  /** Shown on the hosted checkout page; empty until marketplace publishes it (MerchantCreated.business_name). */
  business_name?: string;
}

export interface MerchantDirectory {
  /** MERCHANT_NOT_FOUND when the merchant is unknown. */
  get(merchantId: number): Promise<MerchantProfile>;
}

export interface FxQuote {
  result: Money;
  rate: number;
  source: string;
  surcharge_percent: number;
}

export interface FxConverter {
  /** CONVERSION_FAILED when no rate exists between the currencies. */
  convert(from: Money, toCurrency: string, mode: Mode): Promise<FxQuote>;
}

export interface SplitTerms {
  active: boolean;
  commission_rate: string;
  commission_source: string;
}

export interface SplitResolver {
  resolve(operatorMerchantId: number, subMerchantId: number): Promise<SplitTerms>;
}

export interface GatewayIntent {
  charge_id: string;
  merchant_id: number;
  mode: Mode;
  amount: Money;
  customer_email: string;
  description: string;
  callback_url: string;
}

/** What a gateway hands back when a payment is initialised (spec 2.2 fields by route). */
export interface GatewayAuthorization {
  gateway_reference: string;
  client_secret?: string;
  publishable_key?: string;
  gateway_account_id?: string;
}

export interface GatewayAdapter {
  readonly id: string;
  readonly mode: Mode;
  initialise(intent: GatewayIntent): Promise<GatewayAuthorization>;
}

export interface GatewayRegistry {
  /** Sandbox callers always get sandbox adapters; live callers get live adapters or GATEWAY_NOT_CONFIGURED. */
  adapterFor(group: GatewayGroup, mode: Mode): GatewayAdapter;
}
