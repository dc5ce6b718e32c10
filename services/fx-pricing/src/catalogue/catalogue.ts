import { PlatformError } from '@ppay/kernel';
import type { CatalogueRepository } from './ports';
import { validateRule, type PriceRuleInput, type PriceRuleRecord } from './price-rule';
import { positiveId, productNotFound, validateProduct, type ProductInput, type ProductRecord } from './product';

/** Product catalogue and price rules: creation (admin RPC, seed file), lookup scoped by merchant. */
export class Catalogue {
  constructor(
    private readonly repo: CatalogueRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async upsertProduct(input: ProductInput): Promise<ProductRecord> {
    const valid = validateProduct(input);
    if (input.id) {
      const id = positiveId(input.id, 'id');
      const saved = await this.repo.upsertProduct({ id, ...valid }, this.now());
      await this.repo.reserveProductIds(id);
      return saved;
    }
    // A seeded id the counter has not caught up with yet answers ALREADY_EXISTS: take the next one.
    for (let attempt = 0; ; attempt++) {
      const id = await this.repo.nextProductId();
      try {
        return await this.repo.upsertProduct({ id, ...valid }, this.now());
      } catch (err) {
        if (!(err instanceof PlatformError && err.code === 'ALREADY_EXISTS') || attempt >= 5) throw err;
      }
    }
  }

  async upsertRule(input: PriceRuleInput): Promise<PriceRuleRecord> {
    const rule = validateRule(input);
    if (rule.product_id && !(await this.repo.findProduct(rule.merchant_id, rule.product_id))) {
      throw productNotFound();
    }
    return this.repo.upsertRule(rule, this.now());
  }

  /** The merchant's product; another merchant's product is indistinguishable from a missing one. */
  async product(merchantId: number, productId: number): Promise<ProductRecord> {
    const product = await this.repo.findProduct(merchantId, productId);
    if (!product) throw productNotFound();
    return product;
  }

  /** The product's own rule for the country wins over the merchant-wide one. */
  async ruleFor(product: ProductRecord, country: string): Promise<PriceRuleRecord | undefined> {
    const rules = await this.repo.findRules(product.merchant_id, product.id, country);
    return rules.find((r) => r.product_id === product.id) ?? rules.find((r) => r.product_id === 0);
  }
}
