import { PlatformError } from '@ppay/kernel';
import { OWN_STOCK } from '../catalogue/product';
import { stockLevelsOf, toProduct, type ProductDocument } from '../catalogue/product-document.repo';
import { StockService } from '../stock/stock';
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
  const stock = new StockService({ products: repo, stock: repo }, now);
  return { repo, service, stock };
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

  it('never allows installments on a physical product, created or patched (checkout refuses the pair)', async () => {
    const { service } = world();
    expect(await errorOf(service.create(1000, 'sandbox', { ...MUG, installments_allowed: true }))).toEqual([
      'VALIDATION_FAILED',
      'installments_allowed',
    ]);
    const mug = await service.create(1000, 'sandbox', MUG);
    expect(await errorOf(service.update(1000, 'sandbox', mug.id, { installments_allowed: true }))).toEqual([
      'VALIDATION_FAILED',
      'installments_allowed',
    ]);
    const ebook = await service.create(1000, 'sandbox', { ...EBOOK, installments_allowed: true });
    expect(ebook.installments_allowed).toBe(true);
    expect(
      await errorOf(service.update(1000, 'sandbox', ebook.id, { type: 'physical', shipping: MUG.shipping })),
    ).toEqual(['VALIDATION_FAILED', 'installments_allowed']);
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
    repo.docs.get(mug.id)!.levels.set('_', 7); // three sold since it was read
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
    const laptop = await service.create(1000, 'sandbox', { ...EBOOK, title: 'Course', installments_allowed: true });
    expect(laptop.installments_allowed).toBe(true);
    const renamed = await service.update(1000, 'sandbox', laptop.id, { title: 'Course 2' });
    expect(renamed.installments_allowed).toBe(true);
    const off = await service.update(1000, 'sandbox', laptop.id, { installments_allowed: false });
    expect(off.installments_allowed).toBe(false);
    expect(
      await errorOf(service.create(1000, 'sandbox', { ...EBOOK, installments_allowed: 'yes' as unknown as boolean })),
    ).toEqual(['VALIDATION_FAILED', 'installments_allowed']);
  });

  const UNSAFE_IDS = ['a.b', '$where', '__proto__', 'constructor', 'toString', '_', 'a b', 'x'.repeat(65)];

  it('refuses variation ids that are not safe map keys with 400 naming the field, keeping the stock', async () => {
    const { service } = world();
    for (const id of UNSAFE_IDS) {
      const input = { ...MUG, stock: undefined, variations: [{ variation_id: id, name: 'S', stock: 3 }] };
      expect([id, ...(await errorOf(service.create(1000, 'sandbox', input)))]).toEqual([
        id,
        'VALIDATION_FAILED',
        'variations[0].variation_id',
      ]);
    }
    const shirt = await service.create(1000, 'sandbox', {
      ...MUG,
      stock: undefined,
      variations: [{ variation_id: 'size-S_1', name: 'S', stock: 3 }],
    });
    expect(shirt.variations[0]).toMatchObject({ variation_id: 'size-S_1', stock: 3 });
    for (const id of UNSAFE_IDS) {
      const kept = { variation_id: 'size-S_1', name: 'S' };
      const patch: ProductPatch = { variations: [kept, { variation_id: id, name: 'M', stock: 2 }] };
      expect([id, ...(await errorOf(service.update(1000, 'sandbox', shirt.id, patch)))]).toEqual([
        id,
        'VALIDATION_FAILED',
        'variations[1].variation_id',
      ]);
      const adjust: ProductPatch = { stock_adjustment: 1, variation_id: id };
      expect([id, ...(await errorOf(service.update(1000, 'sandbox', shirt.id, adjust)))]).toEqual([
        id,
        'VALIDATION_FAILED',
        'variation_id',
      ]);
    }
    expect(await service.get(1000, 'sandbox', shirt.id)).toEqual(shirt);
  });

  it('reads stored stock levels as own entries only: a variation id never reaches an inherited member', () => {
    const variations = ['constructor', '__proto__', 'var_s'].map((variation_id) => ({
      variation_id,
      name: variation_id,
      price: null,
      stock: 4,
    }));
    expect([...stockLevelsOf({ stock: null, variations }).keys()]).toEqual(['constructor', '__proto__', 'var_s']);
    const doc = { variations, stock_levels: { var_s: 2 } } as unknown as ProductDocument;
    expect(toProduct(doc).variations.map((v) => v.stock)).toEqual([null, null, 2]);
    expect(toProduct(doc).stock).toBeNull();
  });

  it('refuses an absolute stock PATCH while a checkout holds units, so its release cannot inflate the level', async () => {
    const { service, stock, repo } = world();
    const mug = await service.create(1000, 'sandbox', MUG); // 10
    const line = { merchant_id: 1000, mode: 'sandbox' as const, product_id: mug.id, variation_id: null, quantity: 2 };
    expect(await stock.hold(line, 'cs_a')).toBe('held'); // 8 for sale, 2 held
    expect(await errorOf(service.update(1000, 'sandbox', mug.id, { stock: 4 }))).toEqual(['STOCK_HELD', 'stock']);
    expect(await errorOf(service.update(1000, 'sandbox', mug.id, { stock: null }))).toEqual(['STOCK_HELD', 'stock']);
    expect(repo.docs.get(mug.id)!.levels.get(OWN_STOCK)).toBe(8);
    // A relative change works meanwhile; the absolute one once the checkout settles.
    expect((await service.update(1000, 'sandbox', mug.id, { stock_adjustment: -1 })).stock).toBe(7);
    await stock.commit(mug.id, 'cs_a');
    expect((await service.update(1000, 'sandbox', mug.id, { stock: 4 })).stock).toBe(4);

    // A hold taken after the PATCH read the level, before it wrote: the write fails and is refused on re-read.
    const update = repo.update.bind(repo);
    let raced = false;
    repo.update = async (...args) => {
      if (!raced) {
        raced = true;
        expect(await stock.hold(line, 'cs_b')).toBe('held'); // 4 → 2
      }
      return update(...args);
    };
    expect(await errorOf(service.update(1000, 'sandbox', mug.id, { stock: 9 }))).toEqual(['STOCK_HELD', 'stock']);
    expect(await stock.release(mug.id, 'cs_b')).toBe(true);
    expect((await service.get(1000, 'sandbox', mug.id)).stock).toBe(4);
  });

  it('refuses removing a variation or setting its stock while units of it are held, naming variations', async () => {
    const { service, stock } = world();
    const shirt = await service.create(1000, 'sandbox', {
      ...MUG,
      stock: undefined,
      variations: [
        { variation_id: 'S', name: 'S', stock: 3 },
        { variation_id: 'M', name: 'M', stock: 3 },
      ],
    });
    const line = { merchant_id: 1000, mode: 'sandbox' as const, product_id: shirt.id, variation_id: 'S', quantity: 1 };
    expect(await stock.hold(line, 'cs_a')).toBe('held');
    const setS: ProductPatch = {
      variations: [
        { variation_id: 'S', name: 'S', stock: 5 },
        { variation_id: 'M', name: 'M' },
      ],
    };
    expect(await errorOf(service.update(1000, 'sandbox', shirt.id, setS))).toEqual(['STOCK_HELD', 'variations']);
    const dropS: ProductPatch = { variations: [{ variation_id: 'M', name: 'M' }] };
    expect(await errorOf(service.update(1000, 'sandbox', shirt.id, dropS))).toEqual(['STOCK_HELD', 'variations']);
    const setM: ProductPatch = {
      variations: [
        { variation_id: 'S', name: 'S' },
        { variation_id: 'M', name: 'M', stock: 9 },
      ],
    };
    expect((await service.update(1000, 'sandbox', shirt.id, setM)).variations.map((v) => v.stock)).toEqual([2, 9]);
  });
});
