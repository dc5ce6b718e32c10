import { PlatformError } from '@ppay/kernel';
import { MemoryProducts } from './product-memory.test-util';
import { ProductService, type ProductPatch } from './products';
import type { ProductInput } from './product-input';

const ngn = (amount: number) => ({ amount, currency: 'NGN' });
const MUG: ProductInput = {
  title: 'Mug',
  type: 'physical',
  price: ngn(400_000),
  stock: 10,
  shipping: { fee: ngn(150_000), countries: ['ng', 'GH'] },
};
const EBOOK: ProductInput = { title: 'Ebook', type: 'digital', price: ngn(50_000) };

function world() {
  const repo = new MemoryProducts();
  let clock = Date.parse('2026-11-01T10:00:00Z');
  const now = () => new Date((clock += 1_000));
  const service = new ProductService(repo, (c) => ['NGN', 'USD'].includes(c), {}, now);
  return { repo, service };
}

async function errorOf(p: Promise<unknown>): Promise<[string, string | undefined]> {
  const err = await p.then(
    () => new Error('expected an error'),
    (e: unknown) => e,
  );
  if (!(err instanceof PlatformError)) throw err;
  return [err.code, err.param];
}

describe('ProductService', () => {
  it('creates a physical product with stock and shipping, in the key’s mode', async () => {
    const { service } = world();
    const mug = await service.create(1000, 'sandbox', MUG);
    expect(mug).toMatchObject({
      merchant_id: 1000,
      mode: 'sandbox',
      name: 'Mug',
      type: 'physical',
      base_price: ngn(400_000),
      stock: 10,
      shipping: { fee: ngn(150_000), countries: ['NG', 'GH'] },
      active: true,
      archived_at: null,
    });
    expect(await service.get(1000, 'sandbox', mug.id)).toEqual(mug);
    expect(await errorOf(service.get(1000, 'live', mug.id))).toEqual(['PRODUCT_NOT_FOUND', 'product_id']);
    expect(await errorOf(service.get(2000, 'sandbox', mug.id))).toEqual(['PRODUCT_NOT_FOUND', 'product_id']);
  });

  it('refuses what does not hold together, naming the field', async () => {
    const { service } = world();
    const cases: [Partial<ProductInput>, string][] = [
      [{ title: ' ' }, 'title'],
      [{ title: 'x'.repeat(201) }, 'title'],
      [{ type: 'subscription' }, 'type'],
      [{ price: { amount: 0, currency: 'NGN' } }, 'price.amount'],
      [{ price: { amount: 100, currency: 'JPY' } }, 'price.currency'],
      [{ shipping: undefined }, 'shipping'],
      [{ shipping: { fee: { amount: 1, currency: 'USD' }, countries: ['NG'] } }, 'shipping.fee.currency'],
      [{ shipping: { fee: ngn(1), countries: ['XX'] } }, 'shipping.countries[0]'],
      [{ stock: -1 }, 'stock'],
      [{ variations: [{ name: 'S' }, { name: 's' }] }, 'variations[1].name'],
      [{ variations: [{ name: 'S', stock: 1 }], stock: 5 }, 'stock'],
    ];
    for (const [change, param] of cases) {
      expect([param, ...(await errorOf(service.create(1000, 'sandbox', { ...MUG, ...change })))]).toEqual([
        param,
        'VALIDATION_FAILED',
        param,
      ]);
    }
    expect(await errorOf(service.create(1000, 'sandbox', { ...EBOOK, stock: 3 }))).toEqual([
      'VALIDATION_FAILED',
      'stock',
    ]);
    expect(await errorOf(service.create(1000, 'sandbox', { ...EBOOK, shipping: MUG.shipping }))).toEqual([
      'VALIDATION_FAILED',
      'shipping',
    ]);
  });

  it('patches fields, keeps variations by id with their stock, and adjusts stock never below zero', async () => {
    const { service } = world();
    const shirt = await service.create(1000, 'sandbox', {
      ...MUG,
      title: 'Shirt',
      stock: undefined,
      variations: [
        { name: 'S', stock: 3 },
        { name: 'M', stock: 5, price: ngn(450_000) },
      ],
    });
    const [s, m] = shirt.variations;
    const patched = await service.update(1000, 'sandbox', shirt.id, {
      title: 'Tee',
      variations: [
        { variation_id: s!.variation_id, name: 'Small' },
        { name: 'L', stock: 2 },
      ],
    });
    expect(patched.name).toBe('Tee');
    expect(patched.variations.map((v) => [v.name, v.stock])).toEqual([
      ['Small', 3],
      ['L', 2],
    ]);
    expect(patched.variations.some((v) => v.variation_id === m!.variation_id)).toBe(false);
    const adjusted = await service.update(1000, 'sandbox', shirt.id, {
      stock_adjustment: -3,
      variation_id: s!.variation_id,
    });
    expect(adjusted.variations[0]!.stock).toBe(0);
    const more: ProductPatch = { stock_adjustment: -1, variation_id: s!.variation_id };
    expect(await errorOf(service.update(1000, 'sandbox', shirt.id, more))).toEqual([
      'STOCK_INSUFFICIENT',
      'stock_adjustment',
    ]);
    expect(await errorOf(service.update(1000, 'sandbox', shirt.id, { stock_adjustment: 1 }))).toEqual([
      'VALIDATION_FAILED',
      'variation_id',
    ]);
    const ebook = await service.create(1000, 'sandbox', EBOOK);
    expect(await errorOf(service.update(1000, 'sandbox', ebook.id, { stock_adjustment: 1 }))).toEqual([
      'STOCK_UNLIMITED',
      'stock_adjustment',
    ]);
  });

  it('never overwrites stock a PATCH does not name (a checkout may have taken some meanwhile)', async () => {
    const { service, repo } = world();
    const mug = await service.create(1000, 'sandbox', MUG);
    repo.docs.get(mug.id)!.levels._ = 7; // three sold since it was read
    const renamed = await service.update(1000, 'sandbox', mug.id, { title: 'Big mug' });
    expect(renamed.stock).toBe(7);
    expect((await service.update(1000, 'sandbox', mug.id, { stock: 20 })).stock).toBe(20);
    expect((await service.update(1000, 'sandbox', mug.id, { stock: null })).stock).toBeNull();
  });

  it('archives (kept, unlisted, inactive, read-only), and lists newest first per mode with a cursor', async () => {
    const { service } = world();
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push((await service.create(1000, 'sandbox', { ...EBOOK, title: `E${i}` })).id);
    await service.create(1000, 'live', EBOOK);
    await service.create(1000, 'sandbox', MUG);
    const archived = await service.archive(1000, 'sandbox', ids[1]!);
    expect([archived.active, archived.archived_at === null]).toEqual([false, false]);
    expect(await service.archive(1000, 'sandbox', ids[1]!)).toEqual(archived);
    expect(await errorOf(service.update(1000, 'sandbox', ids[1]!, { title: 'x' }))).toEqual([
      'PRODUCT_ARCHIVED',
      'product_id',
    ]);
    const first = await service.list(1000, 'sandbox', { type: 'digital', limit: 2 });
    expect(first.products.map((p) => p.id)).toEqual([ids[3], ids[2]]);
    const second = await service.list(1000, 'sandbox', { type: 'digital', limit: 2, cursor: first.next_cursor! });
    expect([second.products.map((p) => p.id), second.has_more]).toEqual([[ids[0]], false]);
    expect((await service.list(1000, 'live', {})).products).toHaveLength(1);
    expect(await errorOf(service.list(1000, 'sandbox', { cursor: 'bad' }))).toEqual(['INVALID_CURSOR', 'cursor']);
  });

  it('keeps seeded products read-only and caps products per mode', async () => {
    const { service, repo } = world();
    const mug = await service.create(1000, 'sandbox', MUG);
    repo.docs.get(mug.id)!.product.mode = null; // as the seed file makes them
    expect((await service.get(1000, 'live', mug.id)).id).toBe(mug.id);
    expect(await errorOf(service.update(1000, 'live', mug.id, { title: 'x' }))).toEqual([
      'PRODUCT_READ_ONLY',
      'product_id',
    ]);
    repo.countListed = async () => 10_000;
    expect(await errorOf(service.create(1000, 'sandbox', EBOOK))).toEqual(['PRODUCT_LIMIT_REACHED', undefined]);
  });

  it('installments_allowed (issue 26): false unless given, set on create, changed by a PATCH, kept by others', async () => {
    const { service } = world();
    expect((await service.create(1000, 'sandbox', EBOOK)).installments_allowed).toBe(false);
    const laptop = await service.create(1000, 'sandbox', { ...MUG, title: 'Laptop', installments_allowed: true });
    expect(laptop.installments_allowed).toBe(true);
    const renamed = await service.update(1000, 'sandbox', laptop.id, { title: 'Laptop 14' });
    expect(renamed.installments_allowed).toBe(true);
    const off = await service.update(1000, 'sandbox', laptop.id, { installments_allowed: false });
    expect(off.installments_allowed).toBe(false);
    expect(
      await errorOf(service.create(1000, 'sandbox', { ...EBOOK, installments_allowed: 'yes' as unknown as boolean })),
    ).toEqual(['VALIDATION_FAILED', 'installments_allowed']);
  });
});
