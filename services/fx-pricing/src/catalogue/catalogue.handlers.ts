import { requireInternal } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import type { Catalogue } from './catalogue';

type Handlers = UnaryHandlers<types.fxpricing.FxPricingServiceHandlers>;

/** Catalogue administration (upserts for internal callers): decode, call, encode. */
export function catalogueHandlers(catalogue: Catalogue): Partial<Handlers> {
  return {
    async UpsertProduct(req, { caller }) {
      requireInternal(caller);
      return toWire(
        await catalogue.upsertProduct({
          id: req.id || undefined,
          merchant_id: req.merchant_id,
          name: req.name,
          type: req.type,
          base_price: { amount: req.base_price?.amount ?? Number.NaN, currency: req.base_price?.currency ?? '' },
          installments_allowed: req.installments_allowed,
        }),
      );
    },
    async UpsertPriceRule(req, { caller }) {
      requireInternal(caller);
      const rule = req.rule;
      return toWire(
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
