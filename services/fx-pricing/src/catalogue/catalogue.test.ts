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
