import type { Catalogue } from './catalogue';
import type { PriceRuleInput } from './price-rule';
import type { ProductInput } from './product';

/** The `PRODUCTS_SEED_FILE` body: products with explicit ids, and price rules. */
export interface SeedFile {
  products?: ProductInput[];
  price_rules?: PriceRuleInput[];
}

/** Loads a seed (idempotent: products upsert by id, rules by merchant/product/country); `source` names it in errors. */
export async function seedCatalogue(
  catalogue: Catalogue,
  seed: SeedFile,
  source: string,
): Promise<{ products: number; rules: number }> {
  const products = seed.products ?? [];
  for (const p of products) {
    if (!p.id) throw new Error(`${source}: every seeded product needs an explicit id`);
    await catalogue.upsertProduct(p);
  }
  const rules = seed.price_rules ?? [];
  for (const r of rules) await catalogue.upsertRule(r);
  return { products: products.length, rules: rules.length };
}
