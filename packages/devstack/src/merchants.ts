import { newRequestId } from '@ppay/kernel';
import { callerToMetadata, ServiceClient } from '@ppay/runtime';
import { loadPlatformProto, type types } from '@ppay/proto';
import { mintUserToken } from './tokens';

export interface BootstrapTarget {
  marketplaceAddr: string;
  webhooksAddr: string;
  jwtSecret: string;
}

export interface NewMerchantInput {
  email: string;
  country: string;
  currency: string;
  businessName?: string;
  marketplace?: boolean;
  keyMode?: 'sandbox' | 'live';
  /** Create the merchant as an active sub-merchant of this operator (its marketplace must be set up). */
  operator?: number;
  /** Sub-merchant commission, percent 0..100 (only with `operator`); omitted = marketplace default. */
  commission?: number;
  /** Business setting: the customer pays the transaction fee on top (default: the merchant absorbs it). */
  customerPaysFees?: boolean;
}

export interface NewMerchant {
  merchant_id: number;
  user_token: string;
  api_key: string;
  webhook_secret: string;
  api_key_id: string;
  mode: string;
  baseline_currency: string;
  country: string;
  is_marketplace_operator: boolean;
  /** The operator's business id for a sub-merchant, else null. */
  marketplace_id: number | null;
  customer_pays_fees: boolean;
}

/**
 * Creates a merchant (marketplace service), a user token for the dashboard routes, and a first API
 * key with its webhook secret (webhooks service). This is the platform-admin bootstrap the spec
 * leaves out; it talks gRPC to the running services as an internal caller.
 */
export async function createMerchant(target: BootstrapTarget, input: NewMerchantInput): Promise<NewMerchant> {
  const proto = loadPlatformProto().ppay;
  const marketplace = new ServiceClient<types.marketplace.MarketplaceServiceClient>(
    'marketplace',
    proto.marketplace.v1.MarketplaceService,
    target.marketplaceAddr,
    { deadlineMs: 10_000 },
  );
  const webhooks = new ServiceClient<types.webhooks.WebhooksServiceClient>(
    'webhooks',
    proto.webhooks.v1.WebhooksService,
    target.webhooksAddr,
    { deadlineMs: 10_000 },
  );
  try {
    const merchant = await marketplace.call(
      'CreateMerchant',
      {
        email: input.email,
        business_name: input.businessName,
        country: input.country,
        baseline_currency: input.currency,
        is_marketplace_operator: input.marketplace ?? false,
        operator_merchant_id: input.operator,
        commission_rate: input.commission,
      },
      // A sub-merchant joins the operator's marketplace in the mode of the key created below.
      callerToMetadata({ requestId: newRequestId(), auth: 'internal', mode: input.keyMode ?? 'sandbox' }),
    );
    // The same settings call the dashboard makes (PATCH /account/settings), as the merchant's user.
    const settings = input.customerPaysFees
      ? await marketplace.call(
          'UpdateAccountSettings',
          { customer_pays_fees: true },
          callerToMetadata({ requestId: newRequestId(), auth: 'user_token', merchantId: merchant.id }),
        )
      : { customer_pays_fees: merchant.customer_pays_fees };
    const key = await webhooks.call(
      'CreateApiKey',
      { mode: input.keyMode ?? 'sandbox', name: 'default' },
      callerToMetadata({ requestId: newRequestId(), auth: 'internal', merchantId: merchant.id }),
    );
    return {
      merchant_id: merchant.id,
      user_token: await mintUserToken(merchant.owner_user_id, merchant.id, { secret: target.jwtSecret }),
      api_key: key.api_key,
      webhook_secret: key.webhook_secret,
      api_key_id: key.key!.id,
      mode: key.key!.mode,
      baseline_currency: merchant.baseline_currency,
      country: merchant.country,
      is_marketplace_operator: merchant.is_marketplace_operator,
      marketplace_id: merchant.marketplace_id || null,
      customer_pays_fees: settings.customer_pays_fees,
    };
  } finally {
    marketplace.close();
    webhooks.close();
  }
}
