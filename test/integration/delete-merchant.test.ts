import { COMPONENTS, newEventId, newRequestId, SUBJECTS, type ComponentName } from '@ppay/kernel';
import {
  callerToMetadata,
  connectNats,
  createLogger,
  publishEvent,
  ServiceClient,
  type NatsContext,
} from '@ppay/runtime';
import { loadPlatformProto, type types } from '@ppay/proto';
import { submitCheckoutForm, type NewMerchant } from '@ppay/devstack';
import { testInfraUrls } from '../support/infra';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * Delete merchant (spec 3.5, 4.9, 7.6) through the real stack: a sub-merchant with data in all six
 * services is deleted, and afterwards NO document of it remains in any collection of any of the six
 * databases — found by listing every collection (listCollections), not from a list of known ones, so
 * a collection added later with merchant data fails this test until its service purges it.
 */

/** Fields that name a merchant (at any depth: outbox entries, event payloads, per-mode maps). */
const MERCHANT_ID_FIELDS = new Set([
  'merchant_id',
  'marketplace_id',
  'operator_merchant_id',
  'created_by_marketplace_id',
]);
/**
 * The deletion's own bookkeeping: ids, modes, who acknowledged, the gateway outcome; nothing of the
 * business (docs/decisions.md, Delete merchant). Every other collection is scanned.
 */
const DELETION_BOOKKEEPING = new Set(['merchant_deletions', 'merchant_tombstones']);

function mentions(value: unknown, id: number, depth = 0): boolean {
  if (depth > 12 || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => mentions(v, id, depth + 1));
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (MERCHANT_ID_FIELDS.has(key) && v === id) return true;
    if (mentions(v, id, depth + 1)) return true;
  }
  return false;
}

describe('delete merchant: every document of the business, in every service', () => {
  let t: TestPlatform;
  let op: NewMerchant;
  let fx: ServiceClient<types.fxpricing.FxPricingServiceClient>;
  let nats: NatsContext;

  const api = (key: string | undefined, method: string, url: string, body?: unknown) =>
    http(t.url, method, `/api/v1/partner${url}`, { headers: key ? { 'x-api-key': key } : {}, body });
  const internal = () => callerToMetadata({ requestId: newRequestId(), auth: 'internal' });
  const deleteMerchant = (key: string, id: number) => api(key, 'DELETE', `/marketplace/merchants/${id}/delete`);

  /** Every document mentioning the merchant, as `service.collection` → count, over every collection of every database. */
  async function scan(merchantId: number): Promise<Record<string, number>> {
    const found: Record<string, number> = {};
    for (const service of COMPONENTS) {
      const db = (await t.db(service)).db!;
      for (const { name } of await db.listCollections().toArray()) {
        if (DELETION_BOOKKEEPING.has(name)) continue;
        for (const doc of await db.collection(name).find({}).toArray()) {
          // A document whose own id is the merchant's (the business record, payments' projection).
          const isIt = (doc._id as unknown) === merchantId && !('merchant_id' in doc);
          if (isIt || mentions(doc, merchantId)) found[`${service}.${name}`] = (found[`${service}.${name}`] ?? 0) + 1;
        }
      }
    }
    return found;
  }

  const servicesIn = (found: Record<string, number>) =>
    [...new Set(Object.keys(found).map((k) => k.split('.')[0] as ComponentName))].sort();

  /** A sub-merchant (US: the connected-account KYC route) with data in all six services. */
  async function populatedSubMerchant(): Promise<NewMerchant> {
    const sub = await t.merchant({ operator: op.merchant_id, country: 'US', currency: 'USD' });
    // payments: a charge that succeeds (ledger credit, payment events → webhooks) and a checkout session.
    const charge = await api(sub.api_key, 'POST', '/payments/charge', {
      amount: 500_000,
      currency: 'NGN',
      total_amount: 500_000,
      total_currency: 'NGN',
      customer: { email: 'c@example.com' },
    });
    expect([charge.status, charge.body.error]).toEqual([200, undefined]);
    const done = await api(sub.api_key, 'POST', `/sandbox/charges/${charge.body.data.charge_id}/succeed`);
    expect(done.status).toBe(200);
    const session = await api(sub.api_key, 'POST', '/payments/sessions', {
      amount: 500_000,
      currency: 'NGN',
      product_name: 'Pro plan',
      customer: { email: 'ada@example.com' },
      success_url: 'https://shop.example.com/thanks',
      cancel_url: 'https://shop.example.com/cart',
    });
    expect([session.status, session.body.error]).toEqual([200, undefined]);
    // subscriptions (+ payments: the saved payment method and its charge).
    const subscription = await api(sub.api_key, 'POST', '/sandbox/subscriptions', {
      amount: 500_000,
      currency: 'NGN',
      product_name: 'Bread club',
      customer: { email: 'ada@example.com', first_name: 'Ada' },
      subscription_frequency_key: 'monthly',
      card_number: '4242 4242 4242 4242',
    });
    expect([subscription.status, subscription.body.error]).toEqual([200, undefined]);
    // fx-pricing: a product and a price rule.
    const product = await fx.call(
      'UpsertProduct',
      { merchant_id: sub.merchant_id, name: 'Course', type: 'digital', base_price: { amount: 1999, currency: 'USD' } },
      internal(),
    );
    await fx.call(
      'UpsertPriceRule',
      { rule: { merchant_id: sub.merchant_id, product_id: product.id, country: 'NG', percentage: '-0.30' } },
      internal(),
    );
    // fx-pricing and payments: a physical product with stock, bought on the hosted page (an order).
    const mug = await api(sub.api_key, 'POST', '/products', {
      title: 'Mug',
      type: 'physical',
      price: { amount: 400_000, currency: 'NGN' },
      stock: 5,
      shipping: { fee: { amount: 100_000, currency: 'NGN' }, countries: ['NG'] },
    });
    expect([mug.status, mug.body.error]).toEqual([200, undefined]);
    const goods = await api(sub.api_key, 'POST', '/payments/sessions', {
      product_id: mug.body.data.id,
      customer: { email: 'ada@example.com' },
    });
    expect([goods.status, goods.body.error]).toEqual([200, undefined]);
    const paid = await submitCheckoutForm(t.url, goods.body.data.session_id);
    expect(paid.status).toBe(303);
    expect(
      await eventually(async () => (await api(sub.api_key, 'GET', '/orders')).body.data?.orders.length === 1, 15_000),
    ).toBe(true);
    // kyc: a connected-account submission (the sandbox gateway account delete merchant reads).
    const kyc = await api(op.api_key, 'POST', `/marketplace/merchants/${sub.merchant_id}/kyc`, {
      country: 'US',
      business_type: 'individual',
      return_url: 'https://shop.example.com/return',
      refresh_url: 'https://shop.example.com/refresh',
    });
    expect([kyc.status, kyc.body.error]).toEqual([200, undefined]);
    // webhooks: the key (and the payment events stored for it once the consumers have run).
    const everywhere = await eventually(
      async () => servicesIn(await scan(sub.merchant_id)).length === COMPONENTS.length,
      15_000,
      200,
    );
    expect(servicesIn(await scan(sub.merchant_id))).toEqual([...COMPONENTS].sort());
    expect(everywhere).toBe(true);
    return sub;
  }

  beforeAll(async () => {
    t = await startTestPlatform('delete-merchant', {
      // A short wait, so the "a service is down" case answers its 400 quickly.
      envFor: { marketplace: { DELETE_MERCHANT_WAIT_MS: '4000' } },
    });
    op = await t.merchant({ marketplace: true, country: 'US', currency: 'USD' });
    expect((await api(op.api_key, 'POST', '/marketplace/setup', { marketplace_name: 'Crafts' })).status).toBe(200);
    nats = await connectNats(testInfraUrls().natsUrl, 'delete-merchant-test', createLogger('dm-test', 'silent'));
    fx = new ServiceClient(
      'fx-pricing',
      loadPlatformProto().ppay.fxpricing.v1.FxPricingService,
      t.platform.grpcAddress('fx-pricing'),
      {
        deadlineMs: 10_000,
      },
    );
  }, 120_000);
  afterAll(async () => {
    fx?.close();
    await nats?.nc.drain();
    await t?.stop();
  });

  it('deletes every document of the merchant in all six databases; its key stops working; others keep theirs', async () => {
    const bystander = await populatedSubMerchant();
    const sub = await populatedSubMerchant();
    const res = await deleteMerchant(op.api_key, sub.merchant_id);
    expect([res.status, res.body.error]).toEqual([200, undefined]);
    // The connected account held nothing: it was closed; its (zero) balance is reported.
    expect(res.body.data).toEqual({ gateway_skipped: false, gateway_balance: { amount: 0, currency: 'USD' } });
    expect(res.body.message).toEqual(expect.any(String));
    expect(await scan(sub.merchant_id)).toEqual({});
    // The deleted merchant's key no longer authenticates (its keys were evicted from the gateway cache).
    expect((await api(sub.api_key, 'GET', '/account')).status).toBe(401);
    // Nothing of another sub-merchant went with it.
    expect(servicesIn(await scan(bystander.merchant_id))).toEqual([...COMPONENTS].sort());
    expect((await api(bystander.api_key, 'GET', '/account')).status).toBe(200);
    // A repeat answers the same (idempotent), and the operator no longer lists it.
    const again = await deleteMerchant(op.api_key, sub.merchant_id);
    expect([again.status, again.body.data]).toEqual([200, res.body.data]);
    const listed = await api(op.api_key, 'GET', '/marketplace/merchants?limit=100');
    expect(listed.body.data.merchants.map((m: { merchant_id: number }) => m.merchant_id)).not.toContain(
      sub.merchant_id,
    );
  }, 120_000);

  it('a late event for a deleted merchant does not bring its data back (tombstones)', async () => {
    const sub = await populatedSubMerchant();
    expect((await deleteMerchant(op.api_key, sub.merchant_id)).status).toBe(200);
    const created = (merchantId: number) =>
      publishEvent(nats, {
        event_id: newEventId(),
        subject: SUBJECTS.merchantCreated,
        occurred_at: new Date().toISOString(),
        merchant_id: merchantId,
        data: {
          merchant_id: merchantId,
          country: 'US',
          baseline_currency: 'USD',
          is_marketplace_operator: false,
          marketplace_id: null,
          business_name: 'Late',
          customer_pays_fees: false,
        },
      });
    // Published first: by the time the control's profile exists, the deleted one's was handled (one consumer, in order).
    await created(sub.merchant_id);
    await created(990_001);
    const profiles = (await t.db('payments')).db!.collection('merchant_profiles');
    expect(await eventually(async () => (await profiles.countDocuments({ _id: 990_001 as never })) === 1, 10_000)).toBe(
      true,
    );
    expect(await scan(sub.merchant_id)).toEqual({});
  }, 120_000);

  it('keeps a connected account that still holds money, reports it in standard units, and deletes everything else', async () => {
    const sub = await populatedSubMerchant();
    // The sandbox gateway moves no money; its account's balance is what kyc records on it.
    await (await t.db('kyc')).db!.collection('kyc_cases').updateOne(
      { merchant_id: sub.merchant_id, mode: 'sandbox' },
      {
        $set: {
          'connected.sandbox_balance': {
            available: { amount: 1250, currency: 'USD' },
            pending: { amount: 100, currency: 'USD' },
          },
        },
      },
    );
    const res = await deleteMerchant(op.api_key, sub.merchant_id);
    expect([res.status, res.body.data]).toEqual([
      200,
      { gateway_skipped: true, gateway_balance: { amount: 13.5, currency: 'USD' } },
    ]);
    expect(res.body.message).toContain('12.50 USD');
    expect(await scan(sub.merchant_id)).toEqual({});
  }, 120_000);

  it('a service down: 400 "Failed to delete merchant business data" naming it; the same call finishes the job once it is back', async () => {
    const sub = await populatedSubMerchant();
    await t.platform.stopProcess('subscriptions');
    try {
      const first = await deleteMerchant(op.api_key, sub.merchant_id);
      expect([first.status, first.body.message]).toEqual([400, 'Failed to delete merchant business data']);
      expect(first.body.error.detail).toContain('subscriptions');
      // Everyone else has deleted their part; only the stopped service still holds the merchant's data.
      expect(servicesIn(await scan(sub.merchant_id))).toEqual(['subscriptions']);
    } finally {
      await t.platform.startProcess('subscriptions');
    }
    const retry = await deleteMerchant(op.api_key, sub.merchant_id);
    expect([retry.status, retry.body.error]).toEqual([200, undefined]);
    expect(await scan(sub.merchant_id)).toEqual({});
  }, 120_000);

  it('a business that joins again is deleted again, by its new operator too: a fresh deletion each time (Hardening 2 item 7)', async () => {
    // A business that signed up itself: a sandbox deletion removes its sandbox data and leaves the business.
    const biz = await t.merchant({ country: 'US', currency: 'USD' });
    const other = await t.merchant({ marketplace: true, country: 'US', currency: 'USD' });
    expect((await api(other.api_key, 'POST', '/marketplace/setup', { marketplace_name: 'Other' })).status).toBe(200);
    const join = async (operatorKey: string, key: string) => {
      const inv = await api(operatorKey, 'POST', '/marketplace/merchants', { merchant_id: biz.merchant_id });
      return api(key, 'POST', '/marketplace/invitations/accept', { invite_token: inv.body.data.invite_token });
    };
    /** What the services' tombstone windows and the deletion look like 11 minutes later. */
    const later = async (collections: [ComponentName, string, string][]) => {
      const past = new Date(Date.now() - 11 * 60_000);
      for (const [service, name, field] of collections) {
        await (
          await t.db(service)
        )
          .db!.collection(name)
          .updateMany({ merchant_id: biz.merchant_id }, { $set: { [field]: past } });
      }
    };
    const tombstones = COMPONENTS.map((c): [ComponentName, string, string] => [c, 'merchant_tombstones', 'deleted_at']);
    const newSandboxKey = async () => {
      const res = await http(t.url, 'POST', '/api/v1/partner/create-api-key', {
        headers: { 'x-id-key': biz.user_token },
        body: { type: 'sandbox' },
      });
      expect(res.status).toBe(201);
      return res.body.data.api_key as string;
    };

    expect((await join(op.api_key, biz.api_key)).status).toBe(200);
    const first = await deleteMerchant(op.api_key, biz.merchant_id);
    expect([first.status, first.body.error]).toEqual([200, undefined]);
    // Another marketplace invites it; it may join once the deletion's window has passed.
    await later(tombstones);
    const key = await newSandboxKey();
    const early = await join(other.api_key, key);
    expect([early.status, early.body.error.code]).toEqual([409, 'MERCHANT_RECENTLY_DELETED']);
    await later([['marketplace', 'merchant_deletions', 'requested_at']]);
    expect((await join(other.api_key, key)).status).toBe(200);
    // The first operator's repeat still answers its own deletion and touches nothing.
    const repeat = await deleteMerchant(op.api_key, biz.merchant_id);
    expect([repeat.status, repeat.body.data]).toEqual([200, first.body.data]);
    expect((await api(key, 'GET', '/account')).status).toBe(200);
    // The new operator deletes its own relationship: a fresh deletion, acknowledged again by all six.
    const second = await deleteMerchant(other.api_key, biz.merchant_id);
    expect([second.status, second.body.error]).toEqual([200, undefined]);
    const deletions = await (
      await t.db('marketplace')
    )
      .db!.collection('merchant_deletions')
      .find({ merchant_id: biz.merchant_id })
      .sort({ requested_at: 1 })
      .toArray();
    expect(deletions.map((d) => [d.requested_by, d.acknowledged.length])).toEqual([
      [op.merchant_id, COMPONENTS.length],
      [other.merchant_id, COMPONENTS.length],
    ]);
    expect(new Set(deletions.map((d) => d.deletion_id)).size).toBe(2);
    expect((await api(key, 'GET', '/account')).status).toBe(401);
    expect((await api(other.api_key, 'GET', '/marketplace/merchants?limit=100')).body.data.merchants).toEqual([]);
    // And back with the first operator: deleted a third time.
    await later([...tombstones, ['marketplace', 'merchant_deletions', 'requested_at']]);
    expect((await join(op.api_key, await newSandboxKey())).status).toBe(200);
    const third = await deleteMerchant(op.api_key, biz.merchant_id);
    expect([third.status, third.body.error]).toEqual([200, undefined]);
    expect(
      await (
        await t.db('marketplace')
      )
        .db!.collection('merchant_deletions')
        .countDocuments({ merchant_id: biz.merchant_id }),
    ).toBe(3);
  }, 120_000);

  it('spec 7.6 rows through the stack: another operator’s merchant and an unknown id are 404, a non-operator 403', async () => {
    const sub = await t.merchant({ operator: op.merchant_id, country: 'US', currency: 'USD' });
    const other = await t.merchant({ marketplace: true, country: 'US', currency: 'USD' });
    expect((await api(other.api_key, 'POST', '/marketplace/setup', { marketplace_name: 'Other' })).status).toBe(200);
    for (const id of [sub.merchant_id, 999_999]) {
      const res = await deleteMerchant(other.api_key, id);
      expect([res.status, res.body.message]).toEqual([404, 'Merchant relationship not found']);
    }
    const notOperator = await deleteMerchant(sub.api_key, op.merchant_id);
    expect([notOperator.status, notOperator.body.message]).toEqual([
      403,
      'This endpoint is restricted to marketplace operators',
    ]);
    const invalid = await deleteMerchant(op.api_key, 0);
    expect([invalid.status, invalid.body.message]).toEqual([400, 'Invalid merchant ID']);
    // Nothing happened to the merchant.
    expect((await api(sub.api_key, 'GET', '/account')).status).toBe(200);
  }, 60_000);
});
