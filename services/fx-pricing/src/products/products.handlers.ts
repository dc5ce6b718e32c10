import { requireMerchant, requireMode } from '@ppay/kernel';
import { toWire, type UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import type { MoneyInput, ProductInput, VariationInput } from './product-input';
import { productResource } from './product-resource';
import type { ProductPatch, ProductService } from './products';

type Handlers = UnaryHandlers<types.fxpricing.FxPricingServiceHandlers>;

const moneyOf = (m: types.common.Money__Output | null | undefined): MoneyInput | undefined =>
  m ? { amount: m.amount, currency: m.currency } : undefined;

/** A variation's stock: a number, null (sent as null: unlimited), or undefined (not sent). */
function variationOf(v: types.fxpricing.VariationInput__Output): VariationInput {
  return {
    variation_id: v.variation_id || undefined,
    name: v.name,
    price: moneyOf(v.price) ?? null,
    stock: v.stock_unlimited ? null : (v.stock ?? undefined),
  };
}

const shippingOf = (s: types.fxpricing.ShippingInput__Output | null) =>
  s ? { fee: moneyOf(s.fee)!, countries: s.countries } : undefined;

function createInput(req: types.fxpricing.CreateProductRequest__Output): ProductInput {
  return {
    title: req.title,
    description: req.description || undefined,
    type: req.type,
    price: moneyOf(req.price)!,
    variations: req.variations.map(variationOf),
    stock: req.stock ?? null,
    shipping: shippingOf(req.shipping) ?? null,
    active: req.active ?? undefined,
    installments_allowed: req.installments_allowed ?? undefined,
  };
}

function patchOf(req: types.fxpricing.UpdateProductRequest__Output): ProductPatch {
  const patch: ProductPatch = {};
  if (req.title !== undefined && req.title !== null) patch.title = req.title;
  if (req.description !== undefined && req.description !== null) patch.description = req.description;
  if (req.type !== undefined && req.type !== null) patch.type = req.type;
  if (req.price) patch.price = moneyOf(req.price);
  if (req.variations_given) patch.variations = req.variations.map(variationOf);
  if (req.stock_unlimited) patch.stock = null;
  else if (req.stock !== undefined && req.stock !== null) patch.stock = req.stock;
  if (req.shipping_cleared) patch.shipping = null;
  else if (req.shipping) patch.shipping = shippingOf(req.shipping);
  if (req.active !== undefined && req.active !== null) patch.active = req.active;
  if (req.installments_allowed !== undefined && req.installments_allowed !== null)
    patch.installments_allowed = req.installments_allowed;
  if (req.stock_adjustment !== undefined && req.stock_adjustment !== null)
    patch.stock_adjustment = req.stock_adjustment;
  if (req.variation_id) patch.variation_id = req.variation_id;
  return patch;
}

/** A merchant's own products: decode, call the use case, encode. */
export function productHandlers(products: ProductService): Partial<Handlers> {
  const wire = (p: Parameters<typeof productResource>[0]) => toWire(productResource(p));
  return {
    async CreateProduct(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return wire(await products.create(merchantId, requireMode(caller), createInput(req)));
    },
    async GetProduct(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return wire(await products.get(merchantId, requireMode(caller), req.product_id));
    },
    async UpdateProduct(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return wire(await products.update(merchantId, requireMode(caller), req.product_id, patchOf(req)));
    },
    async ArchiveProduct(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      return wire(await products.archive(merchantId, requireMode(caller), req.product_id));
    },
    async ListProducts(req, { caller }) {
      const { merchantId } = requireMerchant(caller);
      const page = await products.list(merchantId, requireMode(caller), {
        type: req.type || undefined,
        active: req.active ?? undefined,
        limit: req.limit || undefined,
        cursor: req.cursor || undefined,
      });
      return toWire({ ...page, products: page.products.map(productResource) });
    },
  };
}
