import { SANDBOX_KEY, testGateway } from '../gateway-kit.test-util';

const partner = (path: string) => `/api/v1/partner${path}`;
const headers = { 'x-api-key': SANDBOX_KEY };
const ngn = (amount: number) => ({ amount, currency: 'NGN' });

const wireProduct = {
  id: 42,
  title: 'Shirt',
  description: '',
  type: 'physical',
  price: ngn(400_000),
  variations: [{ variation_id: 'var_1', name: 'S', stock: 3 }],
  shipping: { fee: ngn(150_000), countries: ['NG'] },
  active: true,
  is_live: false,
  created_at: '2026-11-01T10:00:00.000Z',
  updated_at: '2026-11-01T10:00:00.000Z',
};

describe('product routes over a fake fx-pricing service', () => {
  it('creates with variations (a null stock is unlimited) and answers absent fields as null', async () => {
    const t = await testGateway({ fxPricing: { CreateProduct: () => wireProduct } });
    const res = await t.app.inject({
      method: 'POST',
      url: partner('/products'),
      headers,
      payload: {
        title: 'Shirt',
        type: 'physical',
        price: ngn(400_000),
        variations: [
          { name: 'S', stock: 3 },
          { name: 'M', stock: null, price: ngn(450_000) },
        ],
        shipping: { fee: ngn(150_000), countries: ['NG'] },
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      message: 'Product created',
      data: {
        ...wireProduct,
        variations: [{ variation_id: 'var_1', name: 'S', stock: 3, price: null }],
        stock: null,
        archived_at: null,
      },
    });
    expect(t.calls[0]!.request.variations).toEqual([
      { name: 'S', stock: 3, stock_unlimited: false },
      { name: 'M', price: ngn(450_000), stock_unlimited: true },
    ]);
  });

  it('patches with nulls as clears and a stock adjustment for one variation', async () => {
    const t = await testGateway({ fxPricing: { UpdateProduct: () => wireProduct } });
    const res = await t.app.inject({
      method: 'PATCH',
      url: partner('/products/42'),
      headers,
      payload: {
        description: 'Cotton',
        stock: null,
        stock_adjustment: -2,
        variation_id: 'var_1',
        installments_allowed: true,
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.installments_allowed).toBe(false); // the fake product's (absent on the wire: false)
    expect(t.calls[0]!.request).toMatchObject({
      product_id: 42,
      installments_allowed: true,
      description: 'Cotton',
      stock_unlimited: true,
      variations_given: false,
      shipping_cleared: false,
      stock_adjustment: -2,
      variation_id: 'var_1',
    });
  });

  it('refuses bodies beyond their bounds, unknown fields and empty patches with 400, calling nothing', async () => {
    const t = await testGateway({ fxPricing: { CreateProduct: () => wireProduct, UpdateProduct: () => wireProduct } });
    const bad = [
      { method: 'POST', url: '/products', payload: { title: 'x', type: 'physical', price: ngn(1), extra: 1 } },
      { method: 'POST', url: '/products', payload: { title: 'x'.repeat(201), type: 'digital', price: ngn(1) } },
      {
        method: 'POST',
        url: '/products',
        payload: { title: 'x', type: 'digital', price: ngn(1), variations: Array(51).fill({ name: 'v' }) },
      },
      { method: 'PATCH', url: '/products/42', payload: {} },
      { method: 'PATCH', url: '/products/0', payload: { title: 'x' } },
    ] as const;
    for (const b of bad) {
      const res = await t.app.inject({ method: b.method, url: partner(b.url), headers, payload: b.payload });
      expect([b.url, res.statusCode]).toEqual([b.url, 400]);
    }
    expect(t.calls).toEqual([]);
  });

  it('refuses variation ids that are not safe stock keys with 400 naming the field, calling nothing', async () => {
    const t = await testGateway({ fxPricing: { CreateProduct: () => wireProduct, UpdateProduct: () => wireProduct } });
    for (const id of ['a.b', '$where', '__proto__', 'constructor', '_', 'x'.repeat(65)]) {
      const variations = [{ variation_id: id, name: 'S', stock: 3 }];
      const shipping = { fee: ngn(0), countries: ['NG'] };
      const created = await t.app.inject({
        method: 'POST',
        url: partner('/products'),
        headers,
        payload: { title: 'Shirt', type: 'physical', price: ngn(1), variations, shipping },
      });
      expect([id, created.statusCode, created.json().error]).toMatchObject([
        id,
        400,
        { code: 'VALIDATION_FAILED', param: 'variations.0.variation_id' },
      ]);
      const patched = await t.app.inject({
        method: 'PATCH',
        url: partner('/products/42'),
        headers,
        payload: { stock_adjustment: 1, variation_id: id },
      });
      expect([id, patched.statusCode, patched.json().error]).toMatchObject([
        id,
        400,
        { code: 'VALIDATION_FAILED', param: 'variation_id' },
      ]);
    }
    expect(t.calls).toEqual([]);
  });

  it('lists with its filters and archives', async () => {
    const t = await testGateway({
      fxPricing: {
        ListProducts: () => ({ products: [wireProduct], has_more: false }),
        ArchiveProduct: () => ({ ...wireProduct, active: false, archived_at: '2026-11-02T00:00:00.000Z' }),
      },
    });
    const list = await t.app.inject({
      method: 'GET',
      url: partner('/products?type=physical&active=true&limit=5'),
      headers,
    });
    expect(list.json().data).toMatchObject({ has_more: false, next_cursor: null, products: [{ id: 42 }] });
    expect(t.calls[0]!.request).toMatchObject({ type: 'physical', active: true, limit: 5 });
    const archived = await t.app.inject({ method: 'DELETE', url: partner('/products/42'), headers });
    expect(archived.json()).toMatchObject({ message: 'Product archived', data: { active: false } });
  });
});
