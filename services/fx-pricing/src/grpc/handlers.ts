import { money, PlatformError, requireInternal, requireMerchant, type UnaryHandlers } from '@ppay/kernel';
import type { types } from '@ppay/proto';
import type { Catalogue, PriceRuleRecord, ProductRecord } from '../domain/catalogue';
import type { Conversion } from '../domain/conversion';
import type { PricingService } from '../domain/pricing';

type Handlers = UnaryHandlers<types.fxpricing.FxPricingServiceHandlers>;

function toProduct(p: ProductRecord): types.fxpricing.Product {
  return {
    id: p.id,
    merchant_id: p.merchant_id,
    name: p.name,
    type: p.type,
    base_price: p.base_price,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
  };
}

function toRule(r: PriceRuleRecord): types.fxpricing.PriceRule {
  return { ...r, updated_at: r.updated_at.toISOString() };
}

function conversionFields(c: Conversion) {
  return {
    rate: Number(c.rate),
    rate_decimal: c.rate,
    mid_rate_decimal: c.mid_rate,
    source: c.source,
    surcharge_percent: Number(c.surcharge_percent),
    rate_date: c.rate_date,
    applied: c.applied,
  };
}

/** Thin gRPC adapters: decode, call the use case, map the result. */
export function fxPricingHandlers(catalogue: Catalogue, pricing: PricingService): Handlers {
  return {
    async GetProductPricing(req, { caller }) {
      const { merchantId, mode } = requireMerchant(caller);
      const r = await pricing.productPricing(merchantId, mode, req.product_id, {
        currency: req.currency || undefined,
        customer_country: req.customer_country || undefined,
        client_ip: req.client_ip || undefined,
      });
      return {
        product: r.product,
        base: r.base,
        local: r.local,
        conversion_rate: Number(r.conversion.rate),
        conversion_rate_decimal: r.conversion.rate,
        conversion_source: r.conversion.source,
        conversion_applied: r.conversion.applied,
        conversion_surcharge_percent: Number(r.conversion.surcharge_percent),
        conversion_rate_date: r.conversion.rate_date,
        price_discrimination: r.price_discrimination
          ? {
              ...r.price_discrimination,
              discrimination_percentage: Number(r.price_discrimination.discrimination_percentage),
            }
          : null,
        product_price: r.product_price,
        total: r.total,
        location_country: r.location.country,
        location_country_code: r.location.country_code,
        location_detected_from: r.location.detected_from,
        currency_code: r.currency.code,
        currency_detected: r.currency.detected,
        currency_override: r.currency.override,
        payment_methods: r.payment.methods,
        payment_currency: r.payment.currency,
      };
    },
    async CalculatePrice(req, { caller }) {
      const { mode } = requireMerchant(caller);
      if (!req.source_currency) {
        throw new PlatformError('VALIDATION_FAILED', 'source_currency is required', { param: 'source_currency' });
      }
      const r = await pricing.calculate(mode, req.amount, req.source_currency, req.target_currency);
      return { base: r.base, local: r.local, ...conversionFields(r.conversion) };
    },
    async Convert(req, { caller }) {
      // Payments calls this with the partner's caller metadata (sandbox → bundled table) or as internal.
      if (caller.auth !== 'internal') requireMerchant(caller);
      let from;
      try {
        from = money(req.from?.amount ?? Number.NaN, req.from?.currency ?? '');
      } catch {
        throw new PlatformError('VALIDATION_FAILED', 'from must be an integer amount and an ISO 4217 currency', {
          param: 'from',
        });
      }
      const c = await pricing.convert(from, (req.to_currency ?? '').toUpperCase(), caller.mode, 'to_currency');
      return { result: c.result, ...conversionFields(c) };
    },
    async ListProducts(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const { items, pagination } = await catalogue.list(merchantId, req.page?.page ?? 1, req.page?.limit ?? 20);
      return { products: items.map(toProduct), pagination };
    },
    async UpsertProduct(req, { caller }) {
      requireInternal(caller);
      return toProduct(
        await catalogue.upsertProduct({
          id: req.id || undefined,
          merchant_id: req.merchant_id,
          name: req.name,
          type: req.type,
          base_price: { amount: req.base_price?.amount ?? Number.NaN, currency: req.base_price?.currency ?? '' },
        }),
      );
    },
    async UpsertPriceRule(req, { caller }) {
      requireInternal(caller);
      const rule = req.rule;
      return toRule(
        await catalogue.upsertRule({
          merchant_id: rule?.merchant_id ?? 0,
          product_id: rule?.product_id ?? 0,
          country: rule?.country ?? '',
          percentage: rule?.percentage ?? '',
        }),
      );
    },
  };
}
