import { eventually } from '../support/platform';
import { email, marketplaceWorld } from '../support/marketplace-world';

/** Spec 2.6, 3.5, 4.9: marketplace setup, and sub-merchants created or linked by invitation. */
describe('marketplace: setup and create-or-link', () => {
  const w = marketplaceWorld('marketplace-setup');
  const { call, resolveSplit, operatorWithMarketplace } = w;

  describe('POST /marketplace/setup', () => {
    it('enables marketplace mode; a repeated call updates the name and keeps the default unless given', async () => {
      const op = await w.t.merchant({ marketplace: true });
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
        await w.t.db('marketplace')
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
      const op = await w.t.merchant({ marketplace: true });
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
      const m = await w.t.merchant();
      for (const [method, url, body] of [
        ['POST', '/marketplace/setup', { marketplace_name: 'X' }],
        ['POST', '/marketplace/merchants', { email: email(), country: 'NG', baseline_currency: 'NGN' }],
        ['GET', '/marketplace/merchants', undefined],
        ['PATCH', '/marketplace/merchants/1000/commission', { commission_rate: 5 }],
        ['DELETE', '/marketplace/merchants/1000', undefined],
        // Whatever it sent (Hardening 2 item 12): a bad body, query or path parameter is still 403.
        ['POST', '/marketplace/setup', {}],
        ['POST', '/marketplace/merchants', { colour: 'red' }],
        ['GET', '/marketplace/merchants?limit=500', undefined],
        ['PATCH', '/marketplace/merchants/abc/commission', { commission_rate: 'ten' }],
        ['DELETE', '/marketplace/merchants/abc/delete', undefined],
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
      const op = await w.t.merchant({ marketplace: true });
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
      const db = await w.t.db('marketplace');
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
      // The same request again (a retry after a lost answer) answers the same sub-merchant.
      const dup = await call(op.api_key, 'POST', '/marketplace/merchants', {
        email: address,
        country: 'GH',
        baseline_currency: 'GHS',
      });
      expect([dup.status, dup.body.data.id, dup.body.data.merchant_id]).toEqual([201, rel.id, rel.merchant_id]);
    });

    it('an e-mail registered to another business invites it: 202 without its id, never 409 (Hardening 2 item 11)', async () => {
      const op = await operatorWithMarketplace();
      const address = `reg${Date.now()}@example.com`;
      const registered = await w.t.merchant({ email: address });
      const res = await call(op.api_key, 'POST', '/marketplace/merchants', {
        email: address.toUpperCase(),
        country: 'NG',
        baseline_currency: 'NGN',
      });
      expect([res.status, res.body.message]).toEqual([202, 'Invitation sent']);
      expect(res.body.data).toMatchObject({ merchant_id: null, status: 'pending', marketplace_id: op.merchant_id });
      expect(JSON.stringify(res.body)).not.toContain(String(registered.merchant_id));
      const sent = await call(op.api_key, 'GET', '/marketplace/invitations?direction=sent');
      expect(sent.body.data.invitations.map((i: { merchant_id: unknown }) => i.merchant_id)).toEqual([null]);
      // The business sees the invitation addressed to it, and joins only by accepting it.
      const received = await call(registered.api_key, 'GET', '/marketplace/invitations');
      const token = received.body.data.invitations[0].invite_token;
      expect(token).toBe(res.body.data.invite_token);
      const joined = await call(registered.api_key, 'POST', '/marketplace/invitations/accept', { invite_token: token });
      expect([joined.status, joined.body.data.merchant_id]).toEqual([200, registered.merchant_id]);
    });

    it('invites an existing business: an invitation without its e-mail; it joins only when it accepts', async () => {
      const op = await operatorWithMarketplace();
      const existing = await w.t.merchant();
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
      const db = await w.t.db('marketplace');
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
      const free = await w.t.merchant();
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
});
