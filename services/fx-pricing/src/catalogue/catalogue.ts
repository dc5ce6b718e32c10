import { readFileSync } from 'node:fs';
import { isCountryCode, money, parseDecimal, PlatformError, type Money } from '@ppay/kernel';
import { decimalString } from './rates';

export const PRODUCT_TYPES = ['digital', 'physical', 'service', 'subscription'] as const;
export type ProductType = (typeof PRODUCT_TYPES)[number];

export interface ProductRecord {
  id: number;
  merchant_id: number;
  name: string;
  type: ProductType;
  /** In the merchant's pricing currency, integer minor units. */
  base_price: Money;
  created_at: Date;
  updated_at: Date;
}

/** A per-country price adjustment (spec 4.4), for one product or (product_id 0) every product of the merchant. */
export interface PriceRuleRecord {
  merchant_id: number;
  product_id: number;
  country: string;
  /** Decimal fraction string: "0.15" = +15 %, "-0.3" = −30 %. */
  percentage: string;
  updated_at: Date;
}

export interface ProductInput {
  id?: number;
  merchant_id: number;
  name: string;
  type: string;
  base_price: { amount: number; currency: string };
}

export interface PriceRuleInput {
  merchant_id: number;
  product_id?: number;
  country: string;
  percentage: string | number;
}

export interface CatalogueRepository {
  nextProductId(): Promise<number>;
  /** Makes sure later `nextProductId` calls return ids above `id` (after seeding explicit ids). */
  reserveProductIds(id: number): Promise<void>;
  /** Creates or replaces product `id` of `merchant_id`; ALREADY_EXISTS when the id belongs to another merchant. */
  upsertProduct(product: Omit<ProductRecord, 'created_at' | 'updated_at'>, now: Date): Promise<ProductRecord>;
  findProduct(merchantId: number, productId: number): Promise<ProductRecord | null>;
  listProducts(merchantId: number, skip: number, limit: number): Promise<{ items: ProductRecord[]; total: number }>;
  upsertRule(rule: Omit<PriceRuleRecord, 'updated_at'>, now: Date): Promise<PriceRuleRecord>;
  /** Rules of the merchant for the country: the product's own and the merchant-wide one (product_id 0). */
  findRules(merchantId: number, productId: number, country: string): Promise<PriceRuleRecord[]>;
}

const invalid = (message: string, param: string) => new PlatformError('VALIDATION_FAILED', message, { param });

function positiveId(value: unknown, param: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalid(`${param} must be a positive integer`, param);
  }
  return value;
}

/** Lowest allowed adjustment: −100 % would make the product free, and below that negative. */
const MIN_PERCENTAGE = parseDecimal('-1');
const MAX_PERCENTAGE = parseDecimal('10');

export function validatePercentage(value: string | number): string {
  let p;
  try {
    p = parseDecimal(value);
  } catch {
    throw invalid('percentage must be a decimal fraction such as 0.15 or -0.30', 'percentage');
  }
  // compare p with the bounds exactly on a common scale
  const scale = Math.max(p.scale, 0);
  const at = (d: { units: bigint; scale: number }) => d.units * 10n ** BigInt(scale - d.scale);
  if (p.scale > 6 || at(p) <= at(MIN_PERCENTAGE) || at(p) > at(MAX_PERCENTAGE)) {
    throw invalid('percentage must be above -1 and at most 10, with at most 6 decimals', 'percentage');
  }
  return decimalString(p);
}

export function validateProduct(input: ProductInput): Omit<ProductRecord, 'created_at' | 'updated_at' | 'id'> {
  const merchant_id = positiveId(input.merchant_id, 'merchant_id');
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (!name || name.length > 200) throw invalid('name is required (at most 200 characters)', 'name');
  if (!(PRODUCT_TYPES as readonly string[]).includes(input.type)) {
    throw invalid(`type must be one of ${PRODUCT_TYPES.join(', ')}`, 'type');
  }
  let base_price: Money;
  try {
    base_price = money(input.base_price?.amount, input.base_price?.currency);
  } catch {
    throw invalid('base_price must be an integer amount of minor units and an ISO 4217 currency', 'base_price');
  }
  if (base_price.amount < 0) throw invalid('base_price.amount must not be negative', 'base_price.amount');
  return { merchant_id, name, type: input.type as ProductType, base_price };
}

export function validateRule(input: PriceRuleInput): Omit<PriceRuleRecord, 'updated_at'> {
  const merchant_id = positiveId(input.merchant_id, 'merchant_id');
  const product_id = input.product_id ? positiveId(input.product_id, 'product_id') : 0;
  const country = typeof input.country === 'string' ? input.country.trim().toUpperCase() : '';
  if (!isCountryCode(country)) throw invalid('country must be an ISO 3166-1 alpha-2 code', 'country');
  return { merchant_id, product_id, country, percentage: validatePercentage(input.percentage) };
}

export interface SeedFile {
  products?: ProductInput[];
  price_rules?: PriceRuleInput[];
}

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
      throw new PlatformError('PRODUCT_NOT_FOUND', undefined, { param: 'product_id' });
    }
    return this.repo.upsertRule(rule, this.now());
  }

  /** The merchant's product; another merchant's product is indistinguishable from a missing one. */
  async product(merchantId: number, productId: number): Promise<ProductRecord> {
    const product = await this.repo.findProduct(merchantId, productId);
    if (!product) throw new PlatformError('PRODUCT_NOT_FOUND', undefined, { param: 'product_id' });
    return product;
  }

  async list(merchantId: number, page: number, limit: number) {
    const p = Math.max(1, Math.trunc(page || 1));
    const l = Math.min(100, Math.max(1, Math.trunc(limit || 20)));
    const { items, total } = await this.repo.listProducts(merchantId, (p - 1) * l, l);
    return { items, pagination: { page: p, limit: l, total, pages: Math.ceil(total / l) } };
  }

  /** The product's own rule for the country wins over the merchant-wide one. */
  async ruleFor(product: ProductRecord, country: string): Promise<PriceRuleRecord | undefined> {
    const rules = await this.repo.findRules(product.merchant_id, product.id, country);
    return rules.find((r) => r.product_id === product.id) ?? rules.find((r) => r.product_id === 0);
  }

  /** Loads a seed file (idempotent: products upsert by id, rules by merchant/product/country). */
  async seed(path: string): Promise<{ products: number; rules: number }> {
    const seed = JSON.parse(readFileSync(path, 'utf8')) as SeedFile;
    const products = seed.products ?? [];
    for (const p of products) {
      if (!p.id) throw new Error(`${path}: every seeded product needs an explicit id`);
      await this.upsertProduct(p);
    }
    const rules = seed.price_rules ?? [];
    for (const r of rules) await this.upsertRule(r);
    return { products: products.length, rules: rules.length };
  }
}
