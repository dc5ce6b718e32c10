import { money, PlatformError, requireMerchant } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import type { PricingService } from './pricing';
import { calculationResource, conversionResource, productPricingResource } from './resources';

type Handlers = UnaryHandlers<types.fxpricing.FxPricingServiceHandlers>;

/** Product pricing, price calculation and conversion: decode, call the use case, encode. */
export function pricingHandlers(pricing: PricingService): Handlers {
  return {
    async GetProductPricing(req, { caller }) {
      const { merchantId, mode } = requireMerchant(caller);
      const r = await pricing.productPricing(merchantId, mode, req.product_id, {
        currency: req.currency || undefined,
        customer_country: req.customer_country || undefined,
        client_ip: req.client_ip || undefined,
      });
      return toWire(productPricingResource(r));
    },
    async CalculatePrice(req, { caller }) {
      const { mode } = requireMerchant(caller);
      // The source currency travels as the amount's currency; the REST parameter keeps its name.
      const amount = req.amount;
      if (!amount?.currency) {
        throw new PlatformError('VALIDATION_FAILED', 'source_currency is required', { param: 'source_currency' });
      }
      return toWire(
        calculationResource(await pricing.calculate(mode, amount.amount, amount.currency, req.target_currency)),
      );
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
      return toWire(conversionResource(c));
    },
  };
}
