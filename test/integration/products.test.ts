import { http, startTestPlatform, type TestPlatform } from '../support/platform';

const ngn = (amount: number) => ({ amount, currency: 'NGN' });

/** A merchant's own products through the real gateway and fx-pricing (stored on FerretDB). */
describe('products', () => {
  let t: TestPlatform;
  const api = (key: string, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    http(t.url, method, `/api/v1/partner${url}`, { headers: { 'x-api-key': key, ...headers }, body });

  beforeAll(async () => {
    t = await startTestPlatform('products');
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('creates, reads, lists, patches, adjusts stock once per Idempotency-Key and archives; priced like any product', async () => {
    const m = await t.merchant();
    const created = await api(m.api_key, 'POST', '/products', {
      title: 'Shirt',
      description: 'Cotton',
      type: 'physical',
      price: ngn(400_000),
      variations: [
        { name: 'S', stock: 3 },
        { name: 'M', stock: 5, price: ngn(450_000) },
      ],
      shipping: { fee: ngn(150_000), countries: ['NG', 'gh'] },
    });
    expect([created.status, created.body.error?.code]).toEqual([200, undefined]);
    const shirt = created.body.data;
    expect(shirt).toMatchObject({
      title: 'Shirt',
      type: 'physical',
      price: ngn(400_000),
      stock: null,
      shipping: { fee: ngn(150_000), countries: ['NG', 'GH'] },
      variations: [
        { name: 'S', stock: 3, price: null },
        { name: 'M', stock: 5, price: ngn(450_000) },
      ],
      is_live: false,
      archived_at: null,
    });
    const ebook = (await api(m.api_key, 'POST', '/products', { title: 'Ebook', type: 'digital', price: ngn(50_000) }))
      .body.data;

    expect((await api(m.api_key, 'GET', `/products/${shirt.id}`)).body.data).toEqual(shirt);
    const physical = (await api(m.api_key, 'GET', '/products?type=physical')).body.data;
    expect(physical.products.map((p: { id: number }) => p.id)).toEqual([shirt.id]);
    const all = (await api(m.api_key, 'GET', '/products?limit=1')).body.data;
    expect([all.products[0].id, all.has_more]).toEqual([ebook.id, true]);

    const [s] = shirt.variations;
    const renamed = await api(m.api_key, 'PATCH', `/products/${shirt.id}`, {
      title: 'Tee',
      variations: [{ variation_id: s.variation_id, name: 'Small' }],
    });
    expect(renamed.body.data).toMatchObject({ title: 'Tee', variations: [{ name: 'Small', stock: 3 }] });
    const adjust = () =>
      api(
        m.api_key,
        'PATCH',
        `/products/${shirt.id}`,
        { stock_adjustment: -2, variation_id: s.variation_id },
        {
          'idempotency-key': 'adjust-1',
        },
      );
    expect((await adjust()).body.data.variations[0].stock).toBe(1);
    const replay = await adjust();
    expect([replay.headers.get('idempotent-replayed'), replay.body.data.variations[0].stock]).toEqual(['true', 1]);
    const tooMany = await api(m.api_key, 'PATCH', `/products/${shirt.id}`, {
      stock_adjustment: -2,
      variation_id: s.variation_id,
    });
    expect([tooMany.status, tooMany.body.error?.code]).toEqual([409, 'STOCK_INSUFFICIENT']);

    const pricing = await api(m.api_key, 'GET', `/products/${ebook.id}/pricing?currency=NGN`);
    expect([pricing.status, pricing.body.data.product]).toEqual([
      200,
      { id: ebook.id, name: 'Ebook', type: 'digital' },
    ]);

    const archived = await api(m.api_key, 'DELETE', `/products/${ebook.id}`);
    expect(archived.body.data).toMatchObject({ active: false, archived_at: expect.any(String) });
    const listed = (await api(m.api_key, 'GET', '/products')).body.data.products.map((p: { id: number }) => p.id);
    expect(listed).toEqual([shirt.id]);
    const edit = await api(m.api_key, 'PATCH', `/products/${ebook.id}`, { title: 'x' });
    expect([edit.status, edit.body.error?.code]).toEqual([409, 'PRODUCT_ARCHIVED']);
    const archivedPrice = await api(m.api_key, 'GET', `/products/${ebook.id}/pricing`);
    expect([archivedPrice.status, archivedPrice.body.error?.code]).toEqual([409, 'PRODUCT_ARCHIVED']);

    // Another mode or another merchant: not found.
    const live = await t.merchant({ keyMode: 'live' });
    expect((await api(live.api_key, 'GET', `/products/${shirt.id}`)).status).toBe(404);
    const bad = await api(m.api_key, 'POST', '/products', { title: 'Mug', type: 'physical', price: ngn(1) });
    expect([bad.status, bad.body.error?.param]).toEqual([400, 'shipping']);
  });
});
