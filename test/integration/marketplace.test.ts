import { newRequestId } from '@ppay/kernel';
import { callerToMetadata, RemoteCallError, ServiceClient } from '@ppay/runtime';
import { loadPlatformProto, type types } from '@ppay/proto';
import type { NewMerchant } from '@ppay/devstack';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';

/** Spec 2.6, 3.5, 4.1 (split lookup), 4.9: marketplace setup, sub-merchants and commission. */
describe('marketplace: setup, create-or-link, commission and the split lookup', () => {
  let t: TestPlatform;
  let grpc: ServiceClient<types.marketplace.MarketplaceServiceClient>;

  const call = (key: string, method: string, url: string, body?: unknown) =>
    http(t.url, method, `/api/v1/partner${url}`, { headers: { 'x-api-key': key }, body });
  const resolveSplit = (operator: number, sub: number, mode: 'sandbox' | 'live' = 'sandbox') =>
    grpc.call(
      'ResolveSplit',
      { operator_merchant_id: operator, sub_merchant_id: sub },
      callerToMetadata({ requestId: newRequestId(), auth: 'internal', mode }),
    );
  const operatorWithMarketplace = async (defaultRate?: number): Promise<NewMerchant> => {
    const op = await t.merchant({ marketplace: true });
    const res = await call(op.api_key, 'POST', '/marketplace/setup', {
      marketplace_name: 'Crafts',
      ...(defaultRate === undefined ? {} : { default_commission_rate: defaultRate }),
    });
    expect(res.status).toBe(200);
    return op;
  };
  const email = () => `sub${Date.now()}${Math.random().toString(36).slice(2, 8)}@example.com`;

  beforeAll(async () => {
    t = await startTestPlatform('marketplace');
    const proto = loadPlatformProto().ppay;
    grpc = new ServiceClient(
      'marketplace',
      proto.marketplace.v1.MarketplaceService,
      t.platform.grpcAddress('marketplace'),
      { deadlineMs: 10_000 },
    );
  });
  afterAll(async () => {
    grpc?.close();
    await t?.stop();
  });

  describe('POST /marketplace/setup', () => {
    it('enables marketplace mode; a repeated call updates the name and keeps the default unless given', async () => {
      const op = await t.merchant({ marketplace: true });
      const first = await call(op.api_key, 'POST', '/marketplace/setup', {
        marketplace_name: 'Crafts',
        default_commission_rate: 8,
      });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        success: true,
        message: 'Marketplace mode enabled',
        data: {
          marketplace_id: String(op.merchant_id),
          status: 'active',
          marketplace_name: 'Crafts',
          default_commission_rate: '0.0800',
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      });
      const again = await call(op.api_key, 'POST', '/marketplace/setup', { marketplace_name: 'Crafts & Co' });
      expect(again.body.data).toMatchObject({ marketplace_name: 'Crafts & Co', default_commission_rate: '0.0800' });
      expect(again.body.data.created_at).toBe(first.body.data.created_at);
      const stored = await (
        await t.db('marketplace')
      )
        .collection('merchants')
        .findOne({ _id: op.merchant_id as never });
      expect(stored?.marketplaces?.sandbox).toMatchObject({
        name: 'Crafts & Co',
        default_commission_rate: '0.0800',
        status: 'active',
      });
    });

    it('validates the body: rate 0..100 with at most 2 decimals, name required, no unknown fields', async () => {
      const op = await t.merchant({ marketplace: true });
      for (const body of [
        { marketplace_name: 'X', default_commission_rate: 101 },
        { marketplace_name: 'X', default_commission_rate: -1 },
        { marketplace_name: 'X', default_commission_rate: '8' },
        { marketplace_name: 'X', default_commission_rate: 8.125 },
        { default_commission_rate: 8 },
        { marketplace_name: 'X', extra: 1 },
      ]) {
        const res = await call(op.api_key, 'POST', '/marketplace/setup', body);
        expect([JSON.stringify(body), res.status, res.body.error.code]).toEqual([
          JSON.stringify(body),
          400,
          'VALIDATION_FAILED',
        ]);
      }
    });

    it('a merchant that is not an operator gets 403 on every marketplace operation', async () => {
      const m = await t.merchant();
      for (const [method, url, body] of [
        ['POST', '/marketplace/setup', { marketplace_name: 'X' }],
        ['POST', '/marketplace/merchants', { email: email(), country: 'NG', baseline_currency: 'NGN' }],
        ['GET', '/marketplace/merchants', undefined],
        ['PATCH', '/marketplace/merchants/1000/commission', { commission_rate: 5 }],
        ['DELETE', '/marketplace/merchants/1000', undefined],
      ] as const) {
        const res = await call(m.api_key, method, url, body);
        expect([url, res.status, res.body.error.code, res.body.message]).toEqual([
          url,
          403,
          'MARKETPLACE_OPERATOR_REQUIRED',
          'This endpoint is restricted to marketplace operators',
        ]);
      }
    });
  });

  describe('POST /marketplace/merchants (create or link)', () => {
    it('needs a set-up marketplace', async () => {
      const op = await t.merchant({ marketplace: true });
      const res = await call(op.api_key, 'POST', '/marketplace/merchants', {
        email: email(),
        country: 'NG',
        baseline_currency: 'NGN',
      });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('MARKETPLACE_NOT_SET_UP');
    });

    it('creates a new business as an active sub-merchant (spec 2.6 shape) and caches it on the merchant', async () => {
      const op = await operatorWithMarketplace(8);
      const address = email();
      const res = await call(op.api_key, 'POST', '/marketplace/merchants', {
        email: address,
        business_name: 'Pottery',
        country: 'GH',
        baseline_currency: 'GHS',
        commission_rate: 5,
      });
      expect(res.status).toBe(201);
      const rel = res.body.data;
      expect(rel).toEqual({
        id: expect.any(Number),
        marketplace_id: op.merchant_id,
        merchant_id: expect.any(Number),
        commission_rate: '0.0500',
        commission_source: 'merchant',
        status: 'active',
        invite_token: null,
        invited_at: null,
        joined_at: expect.any(String),
        created_at: expect.any(String),
        updated_at: expect.any(String),
        merchant: { id: rel.merchant_id, educator_email: address },
        // Added by sub-merchant onboarding (docs/decisions.md, KYC 28): nothing submitted yet.
        kyc_status: 'not_started',
        payouts_enabled: false,
      });
      const db = await t.db('marketplace');
      const sub = await db.collection('merchants').findOne({ _id: rel.merchant_id });
      expect(sub).toMatchObject({
        is_marketplace_operator: false,
        country: 'GH',
        baseline_currency: 'GHS',
        membership: { sandbox: { marketplace_id: op.merchant_id, marketplace_commission_rate: '0.0500' } },
      });
      expect(sub?.membership?.live).toBeUndefined();
      // The relationship_changed event leaves through the outbox.
      expect(
        await eventually(
          async () => (await db.collection('relationships').findOne({ _id: rel.id }))?.outbox?.length === 0,
        ),
      ).toBe(true);
      // The same e-mail again is a conflict that points at linking.
      const dup = await call(op.api_key, 'POST', '/marketplace/merchants', {
        email: address,
        country: 'GH',
        baseline_currency: 'GHS',
      });
      expect(dup.status).toBe(409);
      expect(dup.body.error).toMatchObject({ code: 'ALREADY_EXISTS', param: 'email' });
    });

    it('invites an existing business: an invitation without its e-mail; it joins only when it accepts', async () => {
      const op = await operatorWithMarketplace();
      const existing = await t.merchant();
      const res = await call(op.api_key, 'POST', '/marketplace/merchants', {
        merchant_id: existing.merchant_id,
        commission_rate: 3,
      });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        success: true,
        message: 'Invitation sent',
        data: {
          invite_token: expect.stringMatching(/^inv_[0-9A-Za-z]{32}$/),
          marketplace_id: op.merchant_id,
          marketplace_name: 'Crafts',
          merchant_id: existing.merchant_id,
          mode: 'sandbox',
          commission_rate: '0.0300',
          status: 'pending',
          invited_at: expect.any(String),
          expires_at: expect.any(String),
          responded_at: null,
        },
      });
      expect(JSON.stringify(res.body)).not.toContain('@example.com');
      const token = res.body.data.invite_token as string;
      expect(Date.parse(res.body.data.expires_at) - Date.parse(res.body.data.invited_at)).toBe(7 * 24 * 3600 * 1000);
      // No relationship yet: no split, nothing listed.
      const noSplit = await resolveSplit(op.merchant_id, existing.merchant_id).catch((e: unknown) => e);
      expect(noSplit).toMatchObject({ errorCode: 'RELATIONSHIP_NOT_FOUND' });
      const db = await t.db('marketplace');
      expect(await db.collection('relationships').countDocuments({ merchant_id: existing.merchant_id })).toBe(0);
      expect(await db.collection('invitations').findOne({ _id: token as never })).toMatchObject({ status: 'pending' });

      // The business sees it; the operator sees what it sent.
      const received = await call(existing.api_key, 'GET', '/marketplace/invitations?status=pending');
      expect(received.status).toBe(200);
      expect(received.body.data.invitations).toEqual([res.body.data]);
      const sent = await call(op.api_key, 'GET', '/marketplace/invitations?direction=sent');
      expect(sent.body.data.invitations.map((i: { invite_token: string }) => i.invite_token)).toEqual([token]);

      // The operator cannot accept on the business's behalf.
      const byOperator = await call(op.api_key, 'POST', '/marketplace/invitations/accept', { invite_token: token });
      expect(byOperator.status).toBe(404);
      expect(byOperator.body.error.code).toBe('INVITATION_NOT_FOUND');

      const accepted = await call(existing.api_key, 'POST', '/marketplace/invitations/accept', { invite_token: token });
      expect(accepted.status).toBe(200);
      expect(accepted.body.data).toMatchObject({
        status: 'active',
        invite_token: null,
        joined_at: expect.any(String),
        invited_at: res.body.data.invited_at,
        commission_rate: '0.0300',
        merchant: { id: existing.merchant_id, educator_email: expect.stringContaining('@example.com') },
      });
      expect(await resolveSplit(op.merchant_id, existing.merchant_id)).toMatchObject({ active: true });
      const listed = await call(op.api_key, 'GET', '/marketplace/merchants');
      expect(listed.body.data.merchants.map((m: { merchant_id: number }) => m.merchant_id)).toEqual([
        existing.merchant_id,
      ]);
      // Closed now: declining or cancelling it is a conflict with the status said.
      const late = await call(op.api_key, 'POST', '/marketplace/invitations/cancel', { invite_token: token });
      expect([late.status, late.body.error.code, late.body.error.detail]).toEqual([
        409,
        'INVITATION_CLOSED',
        'The invitation is accepted',
      ]);
      // spec 3.5 list values only: pending is no longer a relationship status.
      expect((await call(op.api_key, 'GET', '/marketplace/merchants?status=pending')).status).toBe(400);
    });

    it('answers every merchant_id alike (unknown, operator, someone’s sub-merchant); pending blocks nothing', async () => {
      const op = await operatorWithMarketplace();
      const other = await operatorWithMarketplace();
      const created = await call(other.api_key, 'POST', '/marketplace/merchants', {
        email: email(),
        country: 'NG',
        baseline_currency: 'NGN',
      });
      const takenId = created.body.data.merchant_id as number;
      const free = await t.merchant();
      const shapes = new Set<string>();
      for (const merchant_id of [free.merchant_id, 99_999_999, other.merchant_id, takenId]) {
        const res = await call(op.api_key, 'POST', '/marketplace/merchants', { merchant_id });
        const { invite_token: _t, merchant_id: _m, invited_at: _i, expires_at: _e, ...rest } = res.body.data;
        shapes.add(JSON.stringify([res.status, res.body.message, Object.keys(res.body.data).sort(), rest]));
      }
      expect(shapes.size).toBe(1);
      expect([...shapes][0]).toContain('"Invitation sent"');

      // A pending invitation does not stop another marketplace; the slot is taken on acceptance only.
      const first = await call(op.api_key, 'POST', '/marketplace/merchants', { merchant_id: free.merchant_id });
      const second = await call(other.api_key, 'POST', '/marketplace/merchants', { merchant_id: free.merchant_id });
      expect(second.status).toBe(202);
      const declined = await call(free.api_key, 'POST', '/marketplace/invitations/decline', {
        invite_token: first.body.data.invite_token,
      });
      expect(declined.body.data).toMatchObject({ status: 'declined', responded_at: expect.any(String) });
      const joined = await call(free.api_key, 'POST', '/marketplace/invitations/accept', {
        invite_token: second.body.data.invite_token,
      });
      expect(joined.status).toBe(200);
      const again = await call(op.api_key, 'POST', '/marketplace/merchants', { merchant_id: free.merchant_id });
      const refused = await call(free.api_key, 'POST', '/marketplace/invitations/accept', {
        invite_token: again.body.data.invite_token,
      });
      expect([refused.status, refused.body.error.code]).toEqual([409, 'MERCHANT_ALREADY_LINKED']);
      const cancelled = await call(op.api_key, 'POST', '/marketplace/invitations/cancel', {
        invite_token: again.body.data.invite_token,
      });
      expect(cancelled.body.data.status).toBe('cancelled');

      // The caller's own mistakes stay 400.
      const own = await call(op.api_key, 'POST', '/marketplace/merchants', { merchant_id: op.merchant_id });
      expect(own.status).toBe(400);
      const both = await call(op.api_key, 'POST', '/marketplace/merchants', { merchant_id: takenId, email: email() });
      expect(both.status).toBe(400);
      const missing = await call(op.api_key, 'POST', '/marketplace/merchants', { email: email(), country: 'NG' });
      expect(missing.status).toBe(400);
      expect(missing.body.error.param).toBe('baseline_currency');
    });
  });

  describe('modes: a sandbox key never reads or changes what live payments use', () => {
    it('sandbox relationship, commission and suspension do not affect live splits; live is invisible to sandbox', async () => {
      const op = await operatorWithMarketplace(8);
      const live = (await http(t.url, 'POST', '/api/v1/partner/create-api-key', {
        headers: { 'x-id-key': op.user_token },
        body: { type: 'live' },
      })) as { status: number; body: { data: { api_key: string } } };
      expect(live.status).toBe(201);
      const liveKey = live.body.data.api_key;
      // Live has its own marketplace: nothing set up in sandbox exists there.
      const notSetUp = await call(liveKey, 'POST', '/marketplace/merchants', {
        email: email(),
        country: 'NG',
        baseline_currency: 'NGN',
      });
      expect(notSetUp.status).toBe(422);
      await call(liveKey, 'POST', '/marketplace/setup', {
        marketplace_name: 'Crafts live',
        default_commission_rate: 2,
      });

      // A business the operator made with its live key: live only.
      const address = email();
      const created = await call(liveKey, 'POST', '/marketplace/merchants', {
        email: address,
        country: 'NG',
        baseline_currency: 'NGN',
      });
      const subId = created.body.data.merchant_id as number;
      expect(await resolveSplit(op.merchant_id, subId, 'live')).toMatchObject({
        active: true,
        commission_rate: '0.0200',
      });
      expect(await resolveSplit(op.merchant_id, subId, 'sandbox').catch((e: unknown) => e)).toMatchObject({
        errorCode: 'RELATIONSHIP_NOT_FOUND',
      });
      expect((await call(op.api_key, 'GET', '/marketplace/merchants')).body.data.pagination.total).toBe(0);
      for (const [method, url, body] of [
        ['PATCH', `/marketplace/merchants/${subId}/commission`, { commission_rate: 50 }],
        ['DELETE', `/marketplace/merchants/${subId}`, undefined],
        ['POST', `/marketplace/merchants/${subId}/reactivate`, undefined],
      ] as const) {
        const res = await call(op.api_key, method, url, body);
        expect([url, res.status, res.body.error.code]).toEqual([url, 404, 'RELATIONSHIP_NOT_FOUND']);
      }

      // The same business joins sandbox too (the operator made it); its sandbox changes stay there.
      const inSandbox = await call(op.api_key, 'POST', '/marketplace/merchants', {
        email: address,
        country: 'NG',
        baseline_currency: 'NGN',
      });
      expect(inSandbox.status).toBe(201);
      expect(inSandbox.body.data.merchant_id).toBe(subId);
      await call(op.api_key, 'PATCH', `/marketplace/merchants/${subId}/commission`, { commission_rate: 50 });
      await call(op.api_key, 'POST', '/marketplace/setup', { marketplace_name: 'Crafts', default_commission_rate: 90 });
      expect((await call(op.api_key, 'DELETE', `/marketplace/merchants/${subId}`)).status).toBe(200);
      expect(await resolveSplit(op.merchant_id, subId, 'sandbox')).toMatchObject({ active: false });
      expect(await resolveSplit(op.merchant_id, subId, 'live')).toMatchObject({
        active: true,
        commission_rate: '0.0200',
        commission_source: 'marketplace_default',
      });
      const stored = await (await t.db('marketplace')).collection('merchants').findOne({ _id: subId as never });
      expect(stored?.membership).toMatchObject({
        live: { marketplace_id: op.merchant_id },
        sandbox: { marketplace_id: null },
      });
      // And the reverse: a live suspension leaves sandbox alone.
      await call(op.api_key, 'POST', `/marketplace/merchants/${subId}/reactivate`);
      expect((await call(liveKey, 'DELETE', `/marketplace/merchants/${subId}`)).status).toBe(200);
      expect((await resolveSplit(op.merchant_id, subId, 'sandbox')).active).toBe(true);
      expect((await resolveSplit(op.merchant_id, subId, 'live')).active).toBe(false);
      const liveList = await call(liveKey, 'GET', '/marketplace/merchants?status=suspended');
      expect(liveList.body.data.merchants).toEqual([expect.objectContaining({ merchant_id: subId })]);

      // An invitation sent with the live key is accepted only with the business's live key.
      const business = await t.merchant();
      const inv = await call(liveKey, 'POST', '/marketplace/merchants', { merchant_id: business.merchant_id });
      expect(inv.body.data.mode).toBe('live');
      const withSandboxKey = await call(business.api_key, 'POST', '/marketplace/invitations/accept', {
        invite_token: inv.body.data.invite_token,
      });
      expect(withSandboxKey.status).toBe(404);
      // A split lookup without a mode is refused rather than guessed.
      const noMode = await grpc
        .call(
          'ResolveSplit',
          { operator_merchant_id: op.merchant_id, sub_merchant_id: subId },
          callerToMetadata({ requestId: newRequestId(), auth: 'internal' }),
        )
        .catch((e: unknown) => e);
      expect(noMode).toMatchObject({ errorCode: 'UNAUTHORIZED' });
    });
  });

  describe('commission and ResolveSplit (internal gRPC)', () => {
    it('resolves merchant rate → marketplace default → 0, exactly as decimals', async () => {
      const none = await operatorWithMarketplace();
      const noneSub = await call(none.api_key, 'POST', '/marketplace/merchants', {
        email: email(),
        country: 'NG',
        baseline_currency: 'NGN',
      });
      expect(await resolveSplit(none.merchant_id, noneSub.body.data.merchant_id)).toEqual({
        active: true,
        commission_rate: '0.0000',
        commission_source: 'none',
        status: 'active',
        relationship_id: noneSub.body.data.id,
        marketplace_id: none.merchant_id,
      });

      const op = await operatorWithMarketplace(8);
      const sub = await call(op.api_key, 'POST', '/marketplace/merchants', {
        email: email(),
        country: 'NG',
        baseline_currency: 'NGN',
      });
      const subId = sub.body.data.merchant_id as number;
      expect(sub.body.data).toMatchObject({ commission_rate: '0.0800', commission_source: 'marketplace_default' });
      expect(await resolveSplit(op.merchant_id, subId)).toMatchObject({
        active: true,
        commission_rate: '0.0800',
        commission_source: 'marketplace_default',
      });

      const patched = await call(op.api_key, 'PATCH', `/marketplace/merchants/${subId}/commission`, {
        commission_rate: 12.5,
      });
      expect(patched.status).toBe(200);
      expect(patched.body.data).toMatchObject({ commission_rate: '0.1250', commission_source: 'merchant' });
      expect(await resolveSplit(op.merchant_id, subId)).toMatchObject({
        commission_rate: '0.1250',
        commission_source: 'merchant',
      });
      const db = await t.db('marketplace');
      expect(
        (await db.collection('merchants').findOne({ _id: subId as never }))?.membership?.sandbox
          ?.marketplace_commission_rate,
      ).toBe('0.1250');

      // A new default does not override a per-merchant rate; null falls back to the default.
      await call(op.api_key, 'POST', '/marketplace/setup', { marketplace_name: 'Crafts', default_commission_rate: 10 });
      expect((await resolveSplit(op.merchant_id, subId)).commission_rate).toBe('0.1250');
      const cleared = await call(op.api_key, 'PATCH', `/marketplace/merchants/${subId}/commission`, {
        commission_rate: null,
      });
      expect(cleared.body.data).toMatchObject({ commission_rate: '0.1000', commission_source: 'marketplace_default' });
      expect(await resolveSplit(op.merchant_id, subId)).toMatchObject({
        commission_rate: '0.1000',
        commission_source: 'marketplace_default',
      });

      const bad = await call(op.api_key, 'PATCH', `/marketplace/merchants/${subId}/commission`, {
        commission_rate: 100.5,
      });
      expect(bad.status).toBe(400);
      const missing = await call(op.api_key, 'PATCH', `/marketplace/merchants/${subId}/commission`, {});
      expect(missing.status).toBe(400);
    });

    it('suspended is inactive; unknown or another marketplace’s sub-merchant is RELATIONSHIP_NOT_FOUND', async () => {
      const op = await operatorWithMarketplace(5);
      const foreign = await operatorWithMarketplace();
      const sub = await call(op.api_key, 'POST', '/marketplace/merchants', {
        email: email(),
        country: 'NG',
        baseline_currency: 'NGN',
      });
      const subId = sub.body.data.merchant_id as number;

      const removed = await call(op.api_key, 'DELETE', `/marketplace/merchants/${subId}`);
      expect(removed.status).toBe(200);
      expect(removed.body).toEqual({ success: true, message: 'Merchant removed from marketplace' });
      expect(await resolveSplit(op.merchant_id, subId)).toMatchObject({
        active: false,
        status: 'suspended',
        commission_rate: '0.0500',
      });
      const stored = await (await t.db('marketplace')).collection('merchants').findOne({ _id: subId as never });
      expect(stored?.membership?.sandbox).toMatchObject({ marketplace_id: null, marketplace_commission_rate: null });
      const twice = await call(op.api_key, 'DELETE', `/marketplace/merchants/${subId}`);
      expect([twice.status, twice.body.message]).toEqual([404, 'Active merchant relationship not found']);
      const listed = await call(op.api_key, 'GET', '/marketplace/merchants?status=suspended&limit=5');
      expect(listed.body.data.merchants.map((m: { merchant_id: number }) => m.merchant_id)).toEqual([subId]);
      expect(listed.body.data.pagination).toEqual({ page: 1, limit: 5, total: 1, pages: 1 });

      const reactivated = await call(op.api_key, 'POST', `/marketplace/merchants/${subId}/reactivate`);
      expect(reactivated.status).toBe(200);
      expect(reactivated.body.data.status).toBe('active');
      expect((await resolveSplit(op.merchant_id, subId)).active).toBe(true);

      for (const [operator, subMerchant] of [
        [foreign.merchant_id, subId],
        [op.merchant_id, 99_999_999],
      ]) {
        const err = await resolveSplit(operator!, subMerchant!).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(RemoteCallError);
        expect(err).toMatchObject({
          errorCode: 'RELATIONSHIP_NOT_FOUND',
          message: 'Active merchant relationship not found',
        });
      }
      // A foreign operator sees 404 on every operation, never the other marketplace's data.
      for (const [method, url, body] of [
        ['PATCH', `/marketplace/merchants/${subId}/commission`, { commission_rate: 1 }],
        ['DELETE', `/marketplace/merchants/${subId}`, undefined],
        ['POST', `/marketplace/merchants/${subId}/reactivate`, undefined],
      ] as const) {
        const res = await call(foreign.api_key, method, url, body);
        expect([url, res.status, res.body.error.code, res.body.message]).toEqual([
          url,
          404,
          'RELATIONSHIP_NOT_FOUND',
          'Active merchant relationship not found',
        ]);
      }
      expect((await call(foreign.api_key, 'GET', '/marketplace/merchants')).body.data.merchants).toEqual([]);
      expect((await resolveSplit(op.merchant_id, subId)).commission_rate).toBe('0.0500');
    });

    it('ResolveSplit is internal-only unless the API-key caller asks about its own marketplace', async () => {
      const op = await operatorWithMarketplace();
      const sub = await t.merchant({ operator: op.merchant_id });
      const asMerchant = (merchantId: number) =>
        grpc
          .call(
            'ResolveSplit',
            { operator_merchant_id: op.merchant_id, sub_merchant_id: sub.merchant_id },
            callerToMetadata({ requestId: newRequestId(), auth: 'api_key', merchantId, mode: 'sandbox' }),
          )
          .catch((e: unknown) => e);
      expect(await asMerchant(op.merchant_id)).toMatchObject({ active: true });
      expect(await asMerchant(sub.merchant_id)).toMatchObject({ errorCode: 'PERMISSION_DENIED' });
      const notOperator = await resolveSplit(sub.merchant_id, op.merchant_id).catch((e: unknown) => e);
      expect(notOperator).toMatchObject({ errorCode: 'MARKETPLACE_OPERATOR_REQUIRED' });
    });
  });

  it('the merchant CLI creates a sub-merchant of a given operator with --operator and --commission', async () => {
    const op = await operatorWithMarketplace(8);
    const args = ['create', '--email', email(), '--country', 'KE', '--currency', 'KES'];
    const { stdout } = await t.merchantCli([...args, '--operator', String(op.merchant_id), '--commission', '7.25']);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]!);
    expect(out).toMatchObject({
      merchant_id: expect.any(Number),
      marketplace_id: op.merchant_id,
      is_marketplace_operator: false,
      baseline_currency: 'KES',
      api_key: expect.stringMatching(/^pk_sandbox_/),
    });
    expect(await resolveSplit(op.merchant_id, out.merchant_id)).toMatchObject({
      active: true,
      commission_rate: '0.0725',
      commission_source: 'merchant',
    });
    const listed = await call(op.api_key, 'GET', '/marketplace/merchants');
    expect(listed.body.data.merchants.map((m: { merchant_id: number }) => m.merchant_id)).toContain(out.merchant_id);
    // The sub-merchant's own key works.
    const account = await call(out.api_key, 'GET', '/account');
    expect(account.body.data).toMatchObject({ merchant_id: out.merchant_id, is_marketplace_operator: false });

    // A plain merchant still prints marketplace_id null; an operator without setup is refused.
    const plain = await t.merchantCli(['create', '--email', email(), '--country', 'NG', '--currency', 'NGN']);
    expect(JSON.parse(plain.stdout).marketplace_id).toBeNull();
    const bare = await t.merchant({ marketplace: true });
    const refused = await t.merchantCli([
      ...args.slice(0, 1),
      '--email',
      email(),
      '--country',
      'NG',
      '--currency',
      'NGN',
      '--operator',
      String(bare.merchant_id),
    ]);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('MARKETPLACE_NOT_SET_UP') });
    const usage = await t.merchantCli([...args, '--commission', '5']);
    expect(usage).toMatchObject({ code: 64, stderr: expect.stringContaining('--commission needs --operator') });
  });
});
