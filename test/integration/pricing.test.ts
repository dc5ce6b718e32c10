import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { newRequestId } from '@ppay/kernel';
import { callerToMetadata, ServiceClient } from '@ppay/runtime';
import { loadPlatformProto, type types } from '@ppay/proto';
import { http, startTestPlatform, type TestPlatform } from '../support/platform';

/** Spec 2.4, 4.4 and the 4.1 double-check (GET /pricing/calculate), through the gateway. */
describe('fx-pricing: product pricing and conversion', () => {
  let t: TestPlatform;
  let admin: ServiceClient<types.fxpricing.FxPricingServiceClient>;
  let feed: Server;
  let feedHost: string;
  let feedHits = 0;
  const internal = () => callerToMetadata({ requestId: newRequestId(), auth: 'internal' });
  const get = (key: string, url: string) =>
    http(t.url, 'GET', `/api/v1/partner${url}`, { headers: { 'x-api-key': key } });

  beforeAll(async () => {
    // A live rate feed on loopback: live keys are priced from it, sandbox keys from the bundled table.
    feed = createServer((_req, res) => {
      feedHits += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ base: 'USD', date: '2026-11-20', rates: { NGN: 1600, GHS: 12.5, EUR: 0.9 } }));
    });
    await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
    feedHost = `127.0.0.1:${(feed.address() as AddressInfo).port}`;
    // Seeded at boot for the first merchant of this platform (merchant ids start at 1000).
    const seedFile = path.join(mkdtempSync(path.join(tmpdir(), 'fx-seed-')), 'products.json');
    writeFileSync(
      seedFile,
      JSON.stringify({
        products: [
          {
            id: 500,
            merchant_id: 1000,
            name: 'Seeded plan',
            type: 'subscription',
            base_price: { amount: 250_000, currency: 'NGN' },
          },
        ],
        price_rules: [{ merchant_id: 1000, product_id: 500, country: 'GH', percentage: '0.15' }],
      }),
    );
    t = await startTestPlatform('pricing', {
      envFor: {
        'fx-pricing': {
          FX_SURCHARGE_PERCENT: '1.5',
          RATE_SOURCE: 'live',
          LIVE_RATES_URL: `http://${feedHost}/latest`,
          RATES_TTL_MS: '60000',
          PRODUCTS_SEED_FILE: seedFile,
        },
      },
    });
    admin = new ServiceClient(
      'fx-pricing',
      loadPlatformProto().ppay.fxpricing.v1.FxPricingService,
      t.platform.grpcAddress('fx-pricing'),
      { deadlineMs: 10_000 },
    );
  });
  afterAll(async () => {
    admin?.close();
    await t?.stop();
    await new Promise((resolve) => feed?.close(resolve));
  });

  const createProduct = (merchantId: number, amount: number, currency: string, name = 'Video course') =>
    admin.call(
      'UpsertProduct',
      { merchant_id: merchantId, name, type: 'digital', base_price: { amount, currency } },
      internal(),
    );

  describe('GET /products/{product_id}/pricing', () => {
    let key: string;
    let productId: number;

    beforeAll(async () => {
      const m = await t.merchant({ country: 'US', currency: 'USD' });
      expect(m.merchant_id).toBe(1000);
      key = m.api_key;
      productId = (await createProduct(m.merchant_id, 1999, 'USD')).id;
      await admin.call(
        'UpsertPriceRule',
        { rule: { merchant_id: m.merchant_id, country: 'NG', percentage: '-0.30' } },
        internal(),
      );
    });

    it('returns every field of the 4.4 table: NGN override, regional price applied before conversion', async () => {
      const res = await get(key, `/products/${productId}/pricing?currency=NGN`);
      expect(res.status).toBe(200);
      // 19.99 USD − 30% = 13.99 USD (−5.997 → −6.00); × 1532.45 × 1.015 = 1555.43675 → 21,760.56 NGN
      expect(res.body).toEqual({
        success: true,
        data: {
          product: { id: productId, name: 'Video course', type: 'digital' },
          pricing: {
            base: { amount: 1999, currency: 'USD', formatted: 'US$19.99' },
            local: { amount: 2_176_056, currency: 'NGN', formatted: '₦21,760.56' },
            conversion: {
              rate: 1555.43675,
              source: 'bundled:2026-11-01',
              applied: true,
              surcharge_percent: 1.5,
              rate_date: '2026-11-01',
            },
          },
          price_discrimination: {
            original_base_price: 1999,
            discrimination_amount: -600,
            adjusted_base_price: 1399,
            discrimination_percentage: -0.3,
            country_triggered: 'NG',
          },
          amount: {
            product_price: { amount: 2_176_056, currency: 'NGN', formatted: '₦21,760.56' },
            total: { amount: 2_176_056, currency: 'NGN', formatted: '₦21,760.56' },
          },
          customer: {
            location: { country: 'Nigeria', country_code: 'NG', detected_from: 'currency' },
            currency: { code: 'NGN', detected: false, override: true },
          },
          payment: { methods: ['card', 'bank_transfer', 'ussd'], currency: 'NGN' },
        },
      });
    });

    it('customer_country picks the currency; no rule for the country gives price_discrimination null', async () => {
      const res = await get(key, `/products/${productId}/pricing?customer_country=gh`);
      expect(res.status).toBe(200);
      expect(res.body.data.price_discrimination).toBeNull();
      // 19.99 × (12.35 × 1.015 = 12.535250) = 250.579647… → GH₵250.58
      expect(res.body.data.pricing.local).toEqual({ amount: 25_058, currency: 'GHS', formatted: 'GH₵250.58' });
      expect(res.body.data.customer).toEqual({
        location: { country: 'Ghana', country_code: 'GH', detected_from: 'query' },
        currency: { code: 'GHS', detected: true, override: false },
      });
      expect(res.body.data.payment).toEqual({ methods: ['card', 'mobile_money'], currency: 'GHS' });
    });

    it('an ambiguous currency takes its country from customer_country (EUR + FR)', async () => {
      const res = await get(key, `/products/${productId}/pricing?currency=EUR&customer_country=FR`);
      expect(res.status).toBe(200);
      // 19.99 × (0.862 × 1.015 = 0.87493) = 17.4898507 → €17.49
      expect(res.body.data.pricing.local).toEqual({ amount: 1749, currency: 'EUR', formatted: '€17.49' });
      expect(res.body.data.customer.location).toEqual({
        country: 'France',
        country_code: 'FR',
        detected_from: 'query',
      });
      expect(res.body.data.payment).toEqual({ methods: ['card'], currency: 'EUR' });
    });

    it('whole-unit currencies are priced in whole units (KRW)', async () => {
      const res = await get(key, `/products/${productId}/pricing?customer_country=KR`);
      // 19.99 × 1392.5 × 1.015 = 28253.63… → ₩28,254
      expect(res.body.data.pricing.local).toEqual({ amount: 28_254, currency: 'KRW', formatted: '₩28,254' });
      // KRW is not a charge currency (spec 4.1 routing): the customer pays in the base currency.
      expect(res.body.data.payment).toEqual({ methods: ['card'], currency: 'USD' });
    });

    it('with nothing to go on (no IP geolocation offline) falls back to the base currency and its country', async () => {
      const res = await get(key, `/products/${productId}/pricing`);
      expect(res.status).toBe(200);
      expect(res.body.data.pricing).toEqual({
        base: { amount: 1999, currency: 'USD', formatted: '$19.99' },
        local: { amount: 1999, currency: 'USD', formatted: '$19.99' },
        conversion: { rate: 1, source: 'identity', applied: false, surcharge_percent: 0, rate_date: '' },
      });
      expect(res.body.data.customer).toEqual({
        location: { country: 'United States', country_code: 'US', detected_from: 'default' },
        currency: { code: 'USD', detected: false, override: false },
      });
    });

    it('the seed file is loaded at boot: products, their rules, and new ids above the seeded ones', async () => {
      expect(productId).toBeGreaterThan(500);
      const res = await get(key, '/products/500/pricing?customer_country=GH');
      expect(res.status).toBe(200);
      // 2,500.00 NGN + 15% = 2,875.00 NGN; × (12.35 / 1532.45 = 0.008058990505) × 1.015 = 23.5173… GHS
      expect(res.body.data).toMatchObject({
        product: { id: 500, name: 'Seeded plan', type: 'subscription' },
        price_discrimination: {
          original_base_price: 250_000,
          discrimination_amount: 37_500,
          adjusted_base_price: 287_500,
          discrimination_percentage: 0.15,
          country_triggered: 'GH',
        },
        pricing: { local: { amount: 2352, currency: 'GHS', formatted: 'GH₵23.52' } },
      });
    });

    it("another merchant's product answers 404 like a missing one", async () => {
      const other = await t.merchant({ country: 'NG', currency: 'NGN' });
      for (const id of [productId, 987_654]) {
        const res = await get(other.api_key, `/products/${id}/pricing`);
        expect(res.status).toBe(404);
        expect(res.body.error).toMatchObject({ code: 'PRODUCT_NOT_FOUND', message: 'Product not found' });
      }
    });

    it('an unsupported currency is 400 "Unable to convert from X to Y"; malformed query values are 400', async () => {
      const res = await get(key, `/products/${productId}/pricing?currency=PEN`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        success: false,
        message: 'Unable to convert from USD to PEN',
        error: { code: 'UNSUPPORTED_CURRENCY', param: 'currency' },
      });
      for (const q of ['currency=NAIRA', 'customer_country=NGA', 'customer_country=ZZ']) {
        const bad = await get(key, `/products/${productId}/pricing?${q}`);
        expect(bad.status).toBe(400);
      }
    });
  });

  describe('GET /pricing/calculate (the 4.1 amount double-check)', () => {
    it("converts from the merchant's baseline currency with rate, source and surcharge", async () => {
      const m = await t.merchant({ country: 'US', currency: 'USD' });
      const res = await get(m.api_key, '/pricing/calculate?amount=1999&target_currency=NGN');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: {
          base: { amount: 1999, currency: 'USD', formatted: 'US$19.99' },
          local: { amount: 3_109_318, currency: 'NGN', formatted: '₦31,093.18' },
          rate: 1555.43675,
          rate_decimal: '1555.43675',
          source: 'bundled:2026-11-01',
          surcharge_percent: 1.5,
          rate_date: '2026-11-01',
          applied: true,
        },
      });
      // Convert (used by payments for charges) gives the same amount for the same caller.
      const converted = await admin.call(
        'Convert',
        { from: { amount: 1999, currency: 'USD' }, to_currency: 'NGN' },
        callerToMetadata({ requestId: newRequestId(), auth: 'api_key', merchantId: m.merchant_id, mode: 'sandbox' }),
      );
      expect(converted).toMatchObject({
        result: { amount: 3_109_318, currency: 'NGN' },
        rate_decimal: '1555.43675',
        mid_rate_decimal: '1532.45',
        source: 'bundled:2026-11-01',
        surcharge_percent: 1.5,
        applied: true,
      });
    });

    it('rounds to whole units for JPY and VND targets', async () => {
      const m = await t.merchant({ country: 'NG', currency: 'NGN' });
      // 5,000.00 NGN × (152.35 / 1532.45 = 0.09941596789) × 1.015 = 504.53… → ¥505
      const jpy = await get(m.api_key, '/pricing/calculate?amount=500000&target_currency=JPY');
      expect(jpy.body.data.local).toEqual({ amount: 505, currency: 'JPY', formatted: '¥505' });
      const vnd = await get(m.api_key, '/pricing/calculate?amount=1050&target_currency=VND&source_currency=USD');
      // 10.50 × 25385 × 1.015 = 270540.64 → ₫270,541
      expect(vnd.body.data.local).toMatchObject({ amount: 270_541, currency: 'VND' });
    });

    it('same currency is identity; unsupported targets are 400', async () => {
      const m = await t.merchant({ country: 'KE', currency: 'KES' });
      const same = await get(m.api_key, '/pricing/calculate?amount=12345&target_currency=kes');
      expect(same.body.data).toMatchObject({
        local: { amount: 12_345, currency: 'KES' },
        rate: 1,
        source: 'identity',
        surcharge_percent: 0,
        applied: false,
      });
      const bad = await get(m.api_key, '/pricing/calculate?amount=100&target_currency=PEN');
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('Unable to convert from KES to PEN');
      expect((await get(m.api_key, '/pricing/calculate?amount=1.5&target_currency=NGN')).status).toBe(400);
      expect((await get(m.api_key, '/pricing/calculate?target_currency=NGN')).status).toBe(400);
    });

    it('live keys are priced from the configured live feed (cached), sandbox keys from the bundled table', async () => {
      const m = await t.merchant({ country: 'US', currency: 'USD', keyMode: 'live' });
      const before = feedHits;
      const res = await get(m.api_key, '/pricing/calculate?amount=1000&target_currency=NGN');
      expect(res.status).toBe(200);
      // 10.00 USD × 1600 × 1.015 = 16240 NGN
      expect(res.body.data).toMatchObject({
        local: { amount: 1_624_000, currency: 'NGN' },
        rate_decimal: '1624',
        source: `live:${feedHost}`,
        rate_date: '2026-11-20',
      });
      await get(m.api_key, '/pricing/calculate?amount=1000&target_currency=GHS');
      expect(feedHits - before).toBeLessThanOrEqual(1);
    });
  });

  describe('catalogue administration and listing', () => {
    it('UpsertProduct and UpsertPriceRule are platform-internal only', async () => {
      const m = await t.merchant();
      const asPartner = callerToMetadata({ requestId: newRequestId(), auth: 'api_key', merchantId: m.merchant_id });
      await expect(
        admin.call(
          'UpsertProduct',
          { merchant_id: m.merchant_id, name: 'x', type: 'digital', base_price: { amount: 1, currency: 'NGN' } },
          asPartner,
        ),
      ).rejects.toMatchObject({ grpcCode: GrpcStatus.PERMISSION_DENIED, errorCode: 'PERMISSION_DENIED' });
      await expect(
        admin.call(
          'UpsertPriceRule',
          { rule: { merchant_id: m.merchant_id, country: 'NG', percentage: '0.1' } },
          asPartner,
        ),
      ).rejects.toMatchObject({ grpcCode: GrpcStatus.PERMISSION_DENIED, errorCode: 'PERMISSION_DENIED' });
    });

    it("GET /products lists only the calling merchant's products, newest first with a cursor", async () => {
      const a = await t.merchant();
      const b = await t.merchant();
      const ids = [];
      for (const name of ['One', 'Two', 'Three'])
        ids.push((await createProduct(a.merchant_id, 50_000, 'NGN', name)).id);
      await createProduct(b.merchant_id, 1, 'NGN');
      const page = await get(a.api_key, '/products?limit=2');
      expect(page.status).toBe(200);
      expect(page.body.data.has_more).toBe(true);
      expect(page.body.data.products.map((p: { id: number }) => p.id)).toEqual([ids[2], ids[1]]);
      const next = await get(a.api_key, `/products?limit=2&cursor=${page.body.data.next_cursor}`);
      // Seeded (admin-upserted) products are listed in sandbox and read-only.
      expect(next.body.data).toEqual({
        has_more: false,
        next_cursor: null,
        products: [
          {
            id: ids[0],
            title: 'One',
            description: '',
            type: 'digital',
            price: { amount: 50_000, currency: 'NGN' },
            variations: [],
            stock: null,
            shipping: null,
            active: true,
            installments_allowed: false,
            archived_at: null,
            is_live: false,
            created_at: expect.any(String),
            updated_at: expect.any(String),
          },
        ],
      });
      // Re-upserting by id updates in place (what the seed file does at boot), keeping its place.
      await admin.call(
        'UpsertProduct',
        {
          id: ids[0],
          merchant_id: a.merchant_id,
          name: 'One v2',
          type: 'service',
          base_price: { amount: 60_000, currency: 'NGN' },
        },
        internal(),
      );
      const again = await get(a.api_key, `/products?limit=2&cursor=${page.body.data.next_cursor}`);
      expect(again.body.data.products[0]).toMatchObject({ id: ids[0], title: 'One v2', type: 'service' });
    });
  });
});
