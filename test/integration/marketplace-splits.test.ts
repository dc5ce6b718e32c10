import { newRequestId } from '@ppay/kernel';
import { callerToMetadata, RemoteCallError } from '@ppay/runtime';
import { http } from '../support/platform';
import { email, marketplaceWorld } from '../support/marketplace-world';

/** Spec 3.5, 4.1 (split lookup), 4.9: modes, commission, the split lookup and the merchant CLI. */
describe('marketplace: modes, commission, the split lookup and the merchant CLI', () => {
  const w = marketplaceWorld('marketplace-splits');
  const { call, resolveSplit, operatorWithMarketplace } = w;

  describe('modes: a sandbox key never reads or changes what live payments use', () => {
    it('sandbox relationship, commission and suspension do not affect live splits; live is invisible to sandbox', async () => {
      const op = await operatorWithMarketplace(8);
      const live = (await http(w.t.url, 'POST', '/api/v1/partner/create-api-key', {
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
      const stored = await (await w.t.db('marketplace')).collection('merchants').findOne({ _id: subId as never });
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
      const business = await w.t.merchant();
      const inv = await call(liveKey, 'POST', '/marketplace/merchants', { merchant_id: business.merchant_id });
      expect(inv.body.data.mode).toBe('live');
      const withSandboxKey = await call(business.api_key, 'POST', '/marketplace/invitations/accept', {
        invite_token: inv.body.data.invite_token,
      });
      expect(withSandboxKey.status).toBe(404);
      // A split lookup without a mode is refused rather than guessed.
      const noMode = await w.grpc
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
      const db = await w.t.db('marketplace');
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
      const stored = await (await w.t.db('marketplace')).collection('merchants').findOne({ _id: subId as never });
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
      const sub = await w.t.merchant({ operator: op.merchant_id });
      const asMerchant = (merchantId: number) =>
        w.grpc
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
    const { stdout } = await w.t.merchantCli([...args, '--operator', String(op.merchant_id), '--commission', '7.25']);
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
    const plain = await w.t.merchantCli(['create', '--email', email(), '--country', 'NG', '--currency', 'NGN']);
    expect(JSON.parse(plain.stdout).marketplace_id).toBeNull();
    const bare = await w.t.merchant({ marketplace: true });
    const refused = await w.t.merchantCli([
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
    const usage = await w.t.merchantCli([...args, '--commission', '5']);
    expect(usage).toMatchObject({ code: 64, stderr: expect.stringContaining('--commission needs --operator') });
  });
});
