import { Catalogue } from './catalogue';
import { MemoryCatalogueRepository } from './memory-catalogue.test-util';
import { validatePercentage } from './price-rule';
import { seedCatalogue } from './seed';

describe('price rules', () => {
  it('validates percentages', () => {
    expect(validatePercentage('0.150')).toBe('0.15');
    expect(validatePercentage(-0.3)).toBe('-0.3');
    for (const bad of ['-1', '-1.5', '10.01', 'abc', '0.1234567']) expect(() => validatePercentage(bad)).toThrow();
  });
});

describe('catalogue seeding and listing', () => {
  it('is idempotent, keeps explicit ids and moves the id counter past them', async () => {
    const seed = {
      products: [
        { id: 5, merchant_id: 1, name: 'Ebook', type: 'digital', base_price: { amount: 500, currency: 'NGN' } },
        { id: 9, merchant_id: 1, name: 'Mug', type: 'physical', base_price: { amount: 4000, currency: 'NGN' } },
      ],
      price_rules: [{ merchant_id: 1, product_id: 9, country: 'gh', percentage: 0.2 }],
    };
    const repo = new MemoryCatalogueRepository();
    const catalogue = new Catalogue(repo);
    expect(await seedCatalogue(catalogue, seed, 'seed.json')).toEqual({ products: 2, rules: 1 });
    expect(await seedCatalogue(catalogue, seed, 'seed.json')).toEqual({ products: 2, rules: 1 });
    expect(repo.products.size).toBe(2);
    expect([...repo.rules.keys()]).toEqual(['1:9:GH']);
    const created = await catalogue.upsertProduct({
      merchant_id: 1,
      name: 'New',
      type: 'service',
      base_price: { amount: 1, currency: 'NGN' },
    });
    expect(created.id).toBe(10);
    expect(created).toMatchObject({ mode: null, active: true, stock: null, variations: [], shipping: null });
  });

  it('validates products', async () => {
    const catalogue = new Catalogue(new MemoryCatalogueRepository());
    const base = { merchant_id: 1, name: 'x', type: 'digital', base_price: { amount: 100, currency: 'USD' } };
    await expect(catalogue.upsertProduct({ ...base, type: 'gift' })).rejects.toMatchObject({ param: 'type' });
    await expect(
      catalogue.upsertProduct({ ...base, base_price: { amount: 1.5, currency: 'USD' } }),
    ).rejects.toMatchObject({
      param: 'base_price',
    });
    await expect(catalogue.upsertProduct({ ...base, name: ' ' })).rejects.toMatchObject({ param: 'name' });
    await expect(
      catalogue.upsertRule({ merchant_id: 1, product_id: 42, country: 'NG', percentage: '0.1' }),
    ).rejects.toMatchObject({
      code: 'PRODUCT_NOT_FOUND',
    });
  });
});

describe('installments_allowed (issue 26)', () => {
  it('is false unless the product says so, is kept by re-seeding, and must be a boolean', async () => {
    const repo = new MemoryCatalogueRepository();
    const catalogue = new Catalogue(repo);
    const laptop = {
      id: 3,
      merchant_id: 1,
      name: 'Laptop',
      type: 'physical',
      base_price: { amount: 90_000, currency: 'USD' },
    };
    await seedCatalogue(
      catalogue,
      { products: [laptop, { ...laptop, id: 4, name: 'Course', installments_allowed: true }] },
      'seed',
    );
    expect((await catalogue.product(1, 3)).installments_allowed).toBe(false);
    expect((await catalogue.product(1, 4)).installments_allowed).toBe(true);
    await catalogue.upsertProduct({ ...laptop, installments_allowed: true });
    expect((await catalogue.product(1, 3)).installments_allowed).toBe(true);
    await expect(
      catalogue.upsertProduct({ ...laptop, installments_allowed: 'yes' as unknown as boolean }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', param: 'installments_allowed' });
  });
});
