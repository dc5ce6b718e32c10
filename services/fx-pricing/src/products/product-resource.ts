import type { ProductRecord } from '../catalogue/product';

/** A product as partners read it (fxpricing ProductDetail): the record under the REST names. */
export function productResource(p: ProductRecord) {
  return {
    id: p.id,
    title: p.name,
    description: p.description,
    type: p.type,
    price: p.base_price,
    variations: p.variations,
    stock: p.stock,
    shipping: p.shipping,
    active: p.active,
    installments_allowed: p.installments_allowed,
    archived_at: p.archived_at,
    is_live: p.mode === 'live',
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}
