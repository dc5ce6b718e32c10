import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { newRequestId, type EventEnvelope, type KycSubmissionUpdated } from '@ppay/kernel';
import { callerToMetadata, connectNats, createLogger, ServiceClient, type NatsContext } from '@ppay/runtime';
import { loadPlatformProto, type types } from '@ppay/proto';
import type { NewMerchant } from '@ppay/devstack';
import { nubanCheckDigit } from '../../services/kyc/src/submissions/account-numbers';
import { TEST_INFRA, testInfraUrls } from '../support/infra';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * Spec 2.7, 2.8, 3.3, 4.9, 7.2–7.4 end to end: KYC on both routes, the review queue and the sandbox
 * helpers, the payout banks directory, payout setup and update, events, mode isolation, encryption.
 */
const nuban = (code: string, serial: string) => serial + String(nubanCheckDigit(code, serial));
const ACCESS = nuban('044', '069012345');
const ZENITH = nuban('057', '101234567');
const KUDA = nuban('950211', '200123456');
const wrongCheckDigit = (n: string) => n.slice(0, 9) + String((Number(n[9]) + 1) % 10);
const NIN = '12345678901';

const owner = {
  first_name: 'John',
  last_name: 'Adebayo',
  date_of_birth: '1990-05-17',
  phone_number: '08031234567',
  email: 'john@example.com',
  id_type: 'nin',
  id_number: NIN,
  id_document_url: 'https://files.example.com/id.png',
  selfie_url: 'https://files.example.com/selfie.png',
  address: { street: '1 Marina', city: 'Lagos', state: 'Lagos', postal_code: '101001', country: 'NG' },
};
/** An owner whose document is Ghanaian (no Nigerian phone number or address). */
const ghOwner = {
  first_name: 'John',
  last_name: 'Adebayo',
  date_of_birth: '1990-05-17',
  id_type: 'passport',
  id_number: 'G1234567',
};
const kycBody = (bank: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  id_country: 'NG',
  account_type: 'individual',
  owner,
  bank_account: {
    country: 'NG',
    bank_name: 'Access Bank',
    account_number: ACCESS,
    account_name: 'ADEBAYO JOHN',
    ...bank,
  },
  ...extra,
});
const connectedBody = {
  country: 'US',
  business_type: 'individual',
  return_url: 'https://shop.example.com/return',
  refresh_url: 'https://shop.example.com/refresh',
};

describe('sub-merchant onboarding: KYC, payout banks and payout accounts', () => {
  let t: TestPlatform;
  let nats: NatsContext;
  let kycGrpc: ServiceClient<types.kyc.KycServiceClient>;
  let op: NewMerchant;
  let opLive: string;
  let admin: string;

  const api = (key: string | undefined, method: string, url: string, body?: unknown) =>
    http(t.url, method, `/api/v1/partner${url}`, { headers: key ? { 'x-api-key': key } : {}, body });
  const adminApi = (method: string, url: string, body?: unknown, token = admin) =>
    http(t.url, method, `/api/v1/admin${url}`, { headers: { 'x-id-key': token }, body });
  const error = (res: { status: number; body: any }) => [res.status, res.body.message];
  const email = () => `sub${randomBytes(5).toString('hex')}@example.com`;

  /** A marketplace operator with a sandbox key (`api_key`) and a live key. */
  const operator = async () => {
    const o = await t.merchant({ marketplace: true, country: 'NG', currency: 'NGN' });
    expect((await api(o.api_key, 'POST', '/marketplace/setup', { marketplace_name: 'Crafts' })).status).toBe(200);
    const live = await http(t.url, 'POST', '/api/v1/partner/create-api-key', {
      headers: { 'x-id-key': o.user_token },
      body: { mode: 'live', name: 'live' },
    });
    expect(live.status).toBe(201);
    const liveKey = live.body.data.api_key as string;
    // Marketplace data is separate per mode (issue 9): the live marketplace is set up on its own.
    expect((await api(liveKey, 'POST', '/marketplace/setup', { marketplace_name: 'Crafts' })).status).toBe(200);
    return { ...o, live_key: liveKey };
  };
  /** A new business under the operator; with `alsoKey`, linked in that key's mode too (same fields). */
  const subMerchant = async (opKey: string, country = 'NG', currency = 'NGN', alsoKey?: string) => {
    const fields = { email: email(), business_name: 'Ada Foods', country, baseline_currency: currency };
    const res = await api(opKey, 'POST', '/marketplace/merchants', fields);
    expect(res.status).toBe(201);
    if (alsoKey) {
      const other = await api(alsoKey, 'POST', '/marketplace/merchants', fields);
      expect([other.status, other.body.data?.merchant_id]).toEqual([201, res.body.data.merchant_id]);
    }
    return res.body.data.merchant_id as number;
  };
  const submit = (key: string, merchantId: number, body: unknown) =>
    api(key, 'POST', `/marketplace/merchants/${merchantId}/kyc`, body);
  const status = async (key: string, merchantId: number) =>
    (await api(key, 'GET', `/marketplace/merchants/${merchantId}/kyc`)).body.data;
  const sandboxDecide = (key: string, id: number, action: string, body: unknown = {}) =>
    api(key, 'POST', `/sandbox/kyc/${id}/${action}`, body);

  beforeAll(async () => {
    t = await startTestPlatform('kyc');
    nats = await connectNats(testInfraUrls().natsUrl, 'kyc-test', createLogger('kyc-test', 'silent'));
    kycGrpc = new ServiceClient('kyc', loadPlatformProto().ppay.kyc.v1.KycService, t.platform.grpcAddress('kyc'), {
      deadlineMs: 10_000,
    });
    const o = await operator();
    op = o;
    opLive = o.live_key;
    admin = await t.adminToken('usr_reviewer');
  });
  afterAll(async () => {
    kycGrpc?.close();
    await nats?.nc.drain();
    await t?.stop();
  });

  describe('spec 7.2: KYC submit errors, in order and word for word', () => {
    it.each([
      ['no country', {}, 'country or id_country is required'],
      ['in-house without account_type', { id_country: 'NG' }, 'account_type is required'],
      [
        'in-house without owner',
        { country: 'GH', account_type: 'individual' },
        'owner object is required for African markets',
      ],
      [
        'a registered business without business',
        {
          id_country: 'ZA',
          account_type: 'registered_business',
          owner: { ...owner, id_type: 'passport', id_number: 'A1234567' },
        },
        'business object is required for registered businesses',
      ],
      [
        'connected without return_url',
        { country: 'FR', refresh_url: 'https://a.example.com' },
        'return_url and refresh_url are required for connected-account onboarding',
      ],
    ])('400 for %s', async (_what, body, message) => {
      const sub = await subMerchant(op.api_key);
      const res = await submit(op.api_key, sub, body);
      expect([res.status, res.body.message, res.body.error.code]).toEqual([400, message, 'VALIDATION_FAILED']);
    });

    it('a body error comes before the operator and relationship checks', async () => {
      const plain = await t.merchant();
      expect(error(await submit(plain.api_key, 999_999, {}))).toEqual([400, 'country or id_country is required']);
    });

    it('401 Unauthorized without a valid key', async () => {
      const sub = await subMerchant(op.api_key);
      for (const key of [undefined, 'pk_sandbox_' + 'A'.repeat(32)]) {
        expect(error(await submit(key as string, sub, kycBody()))).toEqual([401, 'Unauthorized']);
      }
    });

    it('403 for a merchant that is not a marketplace operator', async () => {
      const plain = await t.merchant();
      const sub = await subMerchant(op.api_key);
      expect(error(await submit(plain.api_key, sub, kycBody()))).toEqual([
        403,
        'This endpoint is restricted to marketplace operators',
      ]);
      expect((await api(plain.api_key, 'GET', `/marketplace/merchants/${sub}/kyc`)).status).toBe(403);
    });

    it('404 for an unknown merchant, another marketplace’s, a suspended and an invited one', async () => {
      const other = await operator();
      const foreign = await subMerchant(other.api_key);
      const suspended = await subMerchant(op.api_key);
      expect((await api(op.api_key, 'DELETE', `/marketplace/merchants/${suspended}`)).status).toBe(200);
      const existing = await t.merchant();
      const invited = await api(op.api_key, 'POST', '/marketplace/merchants', { merchant_id: existing.merchant_id });
      expect(invited.body.data.status).toBe('pending');
      for (const id of [999_999, foreign, suspended, existing.merchant_id]) {
        expect([id, ...error(await submit(op.api_key, id, kycBody()))]).toEqual([
          id,
          404,
          'Active merchant relationship not found',
        ]);
        expect((await api(op.api_key, 'GET', `/marketplace/merchants/${id}/kyc`)).status).toBe(404);
      }
    });
  });

  describe('in-house route and auto-approval (spec 3.3, 4.9)', () => {
    it('approves valid Nigerian bank details without mismatch at once; the response is exactly spec 4.9', async () => {
      const sub = await subMerchant(op.api_key);
      const res = await submit(op.api_key, sub, kycBody());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        message: 'KYC approved automatically.',
        data: {
          provider: 'service',
          id: expect.any(Number),
          status: 'approved',
          business_type: 'individual',
          legal_name: 'John Adebayo',
          id_country: 'NG',
          bank_name: 'Access Bank',
          bank_account_number: `******${ACCESS.slice(-4)}`,
          bank_account_name: 'ADEBAYO JOHN',
          settlement_currency: 'NGN',
          country_mismatch: false,
          submitted_at: expect.any(String),
          reviewed_at: expect.any(String),
          rejection_reason: null,
        },
      });
      expect(await status(op.api_key, sub)).toMatchObject({
        id: res.body.data.id,
        status: 'approved',
        merchant_id: sub,
      });
    });

    it('a submission for review says review within 24 hours', async () => {
      const sub = await subMerchant(op.api_key);
      const res = await submit(op.api_key, sub, kycBody({ account_name: 'Ngozi Eze' }));
      expect([res.status, res.body.message, res.body.data.status, res.body.data.reviewed_at]).toEqual([
        200,
        'KYC submitted successfully. It will be reviewed within 24 hours.',
        'pending_review',
        null,
      ]);
    });

    it('refuses auto-approval, with the evidence kept for the reviewer (live queue)', async () => {
      const cases: [string, Record<string, unknown>, Record<string, unknown>, string[]][] = [
        [
          'bad check digit at a microfinance bank',
          { bank_name: 'Kuda Microfinance Bank', account_number: wrongCheckDigit(KUDA) },
          {},
          ['invalid_nuban'],
        ],
        [
          'country mismatch',
          { account_name: 'ADEBAYO JOHN' },
          { id_country: 'GH', owner: ghOwner },
          ['country_mismatch'],
        ],
        ['name mismatch', { account_name: 'Chinedu Okafor' }, {}, ['name_mismatch:0.00']],
      ];
      for (const [what, bank, extra, reasons] of cases) {
        const sub = await subMerchant(opLive);
        const res = await submit(opLive, sub, kycBody(bank, extra));
        expect([what, res.status, res.body.data.status]).toEqual([what, 200, 'pending_review']);
        const review = await adminApi('GET', `/kyc/submissions/${res.body.data.id}`);
        expect([what, review.body.data.review]).toEqual([
          what,
          { decision: 'manual_review', reasons, name_match_score: expect.any(Number) },
        ]);
        if (what === 'country mismatch') expect(res.body.data.country_mismatch).toBe(true);
      }
    });

    it('refuses a bad check digit at a commercial bank and an unknown bank with a 400 naming the field', async () => {
      const sub = await subMerchant(op.api_key);
      const bad = await submit(op.api_key, sub, kycBody({ account_number: wrongCheckDigit(ACCESS) }));
      expect([bad.status, bad.body.error.param, bad.body.message]).toEqual([
        400,
        'bank_account.account_number',
        'bank_account.account_number must be a valid 10-digit NUBAN for Access Bank',
      ]);
      const unknown = await submit(op.api_key, sub, kycBody({ bank_name: 'First Bank of Mars' }));
      expect([unknown.status, unknown.body.error.param, unknown.body.message]).toEqual([
        400,
        'bank_account.bank_name',
        'bank_account.bank_name "First Bank of Mars" is not a supported bank; see GET /marketplace/payout/banks',
      ]);
      expect((await status(op.api_key, sub)).status).toBe('not_started');
    });

    it('takes the flat (legacy) body with a registered business', async () => {
      const sub = await subMerchant(op.api_key);
      const res = await submit(op.api_key, sub, {
        country: 'NG',
        account_type: 'registered_business',
        first_name: 'John',
        last_name: 'Adebayo',
        date_of_birth: '1990-05-17',
        id_type: 'bvn',
        id_number: '22345678901',
        business_name: 'Adebayo Foods Ltd',
        registration_number: 'RC123456',
        bank_name: 'Access Bank',
        account_number: ACCESS,
        account_name: 'ADEBAYO FOODS LIMITED',
      });
      expect(res.body.data).toMatchObject({
        status: 'approved',
        business_type: 'registered_business',
        legal_name: 'Adebayo Foods Ltd',
      });
      const missing = await submit(op.api_key, sub, { country: 'NG', account_type: 'individual', first_name: 'John' });
      expect([missing.status, missing.body.error.param]).toEqual([400, 'last_name']);
    });
  });

  describe('spec 3.3: every transition, by the sandbox helpers and the admin API', () => {
    it('sandbox: reject → resubmit → request info → resubmit → approve → revoke; illegal moves are 409 with the status', async () => {
      const sub = await subMerchant(op.api_key);
      const first = await submit(op.api_key, sub, kycBody({ account_name: 'Ngozi Eze' }));
      const id = first.body.data.id as number;
      const conflict = async (res: Promise<{ status: number; body: any }>, current: string, action: string) => {
        const r = await res;
        expect([r.status, r.body.message, r.body.error.code, r.body.error.detail]).toEqual([
          409,
          `KYC submission is ${current}; cannot ${action}`,
          'KYC_TRANSITION_NOT_ALLOWED',
          current,
        ]);
      };
      await conflict(submit(op.api_key, sub, kycBody()), 'pending_review', 'submit');
      await conflict(sandboxDecide(op.api_key, id, 'revoke', { reason: 'Fraud ring' }), 'pending_review', 'revoke');
      const rejected = await sandboxDecide(op.api_key, id, 'reject', { reason: 'Selfie does not match' });
      expect(rejected.body.data).toMatchObject({ status: 'rejected', rejection_reason: 'Selfie does not match' });
      expect(rejected.body.data.reviewed_at).toEqual(expect.any(String));
      await conflict(sandboxDecide(op.api_key, id, 'approve'), 'rejected', 'approve');
      // A valid resubmission is not auto-approved: it goes back to a person.
      expect((await submit(op.api_key, sub, kycBody())).body.data).toMatchObject({ id, status: 'pending_review' });
      const info = await sandboxDecide(op.api_key, id, 'request_info', { message: 'Upload the back of the ID card' });
      expect(info.body.data).toMatchObject({
        status: 'additional_info_requested',
        additional_info_request: 'Upload the back of the ID card',
      });
      expect((await submit(op.api_key, sub, kycBody())).body.data.status).toBe('pending_review');
      expect((await sandboxDecide(op.api_key, id, 'approve')).body.data.status).toBe('approved');
      await conflict(submit(op.api_key, sub, kycBody()), 'approved', 'submit');
      await conflict(sandboxDecide(op.api_key, id, 'reject', { reason: 'Too late' }), 'approved', 'reject');
      const revoked = await sandboxDecide(op.api_key, id, 'revoke', { reason: 'Chargeback fraud' });
      expect(revoked.body.data).toMatchObject({ status: 'revoked', rejection_reason: 'Chargeback fraud' });
      await conflict(submit(op.api_key, sub, kycBody()), 'revoked', 'submit');
      const bad = await sandboxDecide(op.api_key, id, 'reject', { reason: 'no' });
      expect([bad.status, bad.body.error.param]).toEqual([400, 'reason']);
    });

    it('sandbox helpers: live keys are refused, live and foreign submissions are not found', async () => {
      const sub = await subMerchant(op.api_key, 'NG', 'NGN', opLive);
      const sandboxId = (await submit(op.api_key, sub, kycBody({ account_name: 'Ngozi Eze' }))).body.data.id;
      const liveId = (await submit(opLive, sub, kycBody({ account_name: 'Ngozi Eze' }))).body.data.id;
      expect(error(await sandboxDecide(opLive, sandboxId, 'approve'))).toEqual([
        403,
        'Sandbox test helpers are only available with sandbox keys',
      ]);
      expect(error(await sandboxDecide(op.api_key, liveId, 'approve'))).toEqual([404, 'KYC submission not found']);
      const other = await operator();
      expect(error(await sandboxDecide(other.api_key, sandboxId, 'approve'))).toEqual([
        404,
        'KYC submission not found',
      ]);
      expect((await status(opLive, sub)).status).toBe('pending_review');
    });

    it('admin API: the live queue only, oldest first; approve, reject, request info, revoke; no sandbox ids', async () => {
      const subs = [await subMerchant(opLive), await subMerchant(opLive), await subMerchant(opLive)];
      const ids: number[] = [];
      for (const sub of subs)
        ids.push((await submit(opLive, sub, kycBody({ account_name: 'Ngozi Eze' }))).body.data.id);
      const sandboxSub = await subMerchant(op.api_key);
      const sandboxId = (await submit(op.api_key, sandboxSub, kycBody({ account_name: 'Ngozi Eze' }))).body.data.id;

      const queue = await adminApi('GET', '/kyc/submissions?limit=100');
      expect(queue.status).toBe(200);
      const listed = queue.body.data.submissions.map((s: { id: number }) => s.id);
      expect(listed).toEqual(expect.arrayContaining(ids));
      expect(listed).not.toContain(sandboxId);
      expect(listed.indexOf(ids[0])).toBeLessThan(listed.indexOf(ids[2]));
      const item = queue.body.data.submissions.find((s: { id: number }) => s.id === ids[0]);
      expect(item).toMatchObject({
        merchant_id: subs[0],
        marketplace_id: op.merchant_id,
        owner: { id_number: `*******${NIN.slice(-4)}`, id_document_url: owner.id_document_url },
        bank_account_number: `******${ACCESS.slice(-4)}`,
        history: [{ action: 'submit', actor: 'operator', from_status: 'not_started', to_status: 'pending_review' }],
      });
      expect(JSON.stringify(queue.body)).not.toContain(NIN);

      expect(error(await adminApi('POST', `/kyc/submissions/${sandboxId}/approve`))).toEqual([
        404,
        'KYC submission not found',
      ]);
      const approved = await adminApi('POST', `/kyc/submissions/${ids[0]}/approve`);
      expect(approved.body.data).toMatchObject({ status: 'approved' });
      expect(approved.body.data.history.at(-1)).toMatchObject({
        action: 'approve',
        actor: 'admin',
        actor_id: 'usr_reviewer',
      });
      expect(
        (await adminApi('POST', `/kyc/submissions/${ids[1]}/reject`, { reason: 'Forged document' })).body.data,
      ).toMatchObject({
        status: 'rejected',
        rejection_reason: 'Forged document',
      });
      expect(
        (await adminApi('POST', `/kyc/submissions/${ids[2]}/request_info`, { message: 'Proof of address' })).body.data
          .status,
      ).toBe('additional_info_requested');
      expect(
        (await adminApi('POST', `/kyc/submissions/${ids[0]}/revoke`, { reason: 'Sanctions hit' })).body.data.status,
      ).toBe('revoked');
      const again = await adminApi('POST', `/kyc/submissions/${ids[0]}/approve`);
      expect([again.status, again.body.message]).toEqual([409, 'KYC submission is revoked; cannot approve']);
      const rejected = await adminApi('GET', '/kyc/submissions?status=rejected&limit=100');
      expect(rejected.body.data.submissions.map((s: { id: number }) => s.id)).toContain(ids[1]);
      // Operators see the outcome on their side.
      expect(await status(opLive, subs[1])).toMatchObject({ status: 'rejected', rejection_reason: 'Forged document' });
      expect(await status(opLive, subs[2])).toMatchObject({ additional_info_request: 'Proof of address' });
    });

    it('admin API refuses merchant user tokens (403) and missing tokens (401); the CLI mints an admin token', async () => {
      expect(error(await adminApi('GET', '/kyc/submissions', undefined, op.user_token))).toEqual([
        403,
        'This endpoint is restricted to platform administrators',
      ]);
      expect((await http(t.url, 'GET', '/api/v1/admin/kyc/submissions')).status).toBe(401);
      const cli = await t.merchantCli(['admin-token', '--user', 'usr_cli_admin']);
      expect(cli.code).toBe(0);
      const minted = JSON.parse(cli.stdout) as { admin_token: string; role: string };
      expect(minted.role).toBe('platform_admin');
      expect((await adminApi('GET', '/kyc/submissions', undefined, minted.admin_token)).status).toBe(200);
    });
  });

  describe('spec 7.3: payout banks', () => {
    it('NGN returns Nigerian institutions only, omitted returns all, an unknown currency is a clear 400', async () => {
      const ngn = await api(op.api_key, 'GET', '/marketplace/payout/banks?currency=NGN');
      expect(ngn.status).toBe(200);
      expect(ngn.body.data.length).toBeGreaterThanOrEqual(25);
      expect(new Set(ngn.body.data.map((b: { country_iso_code: string }) => b.country_iso_code))).toEqual(
        new Set(['NG']),
      );
      expect(ngn.body.data[0]).toEqual({
        institution_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: expect.any(String),
        currency: 'NGN',
        country_iso_code: 'NG',
        account_number_type: 'bank_account_number',
      });
      const all = await api(op.api_key, 'GET', '/marketplace/payout/banks');
      expect(all.body.data).toHaveLength(72);
      expect(all.body.data.find((b: { name: string }) => b.name === 'M-PESA')).toMatchObject({
        currency: 'KES',
        account_number_type: 'phone_number',
      });
      const usd = await api(op.api_key, 'GET', '/marketplace/payout/banks?currency=USD');
      expect([usd.status, usd.body.message, usd.body.error.param]).toEqual([
        400,
        'currency must be one of GHS, KES, NGN, ZAR',
        'currency',
      ]);
      expect(error(await api(undefined, 'GET', '/marketplace/payout/banks'))).toEqual([401, 'Unauthorized']);
      // Like every spec 4.9 endpoint, for marketplace operators only.
      const plain = await t.merchant();
      expect(error(await api(plain.api_key, 'GET', '/marketplace/payout/banks'))).toEqual([
        403,
        'This endpoint is restricted to marketplace operators',
      ]);
    });
  });

  describe('spec 4.9 / 7.4: payout setup and update', () => {
    it('7.4 messages, each in its condition', async () => {
      const sub = await subMerchant(op.api_key);
      const us = await subMerchant(op.api_key, 'US', 'USD');
      const patch = (key: string, id: number, body: unknown) =>
        api(key, 'PATCH', `/marketplace/merchants/${id}/payout`, body);
      expect(error(await patch(op.api_key, sub, {}))).toEqual([400, 'At least one field must be provided']);
      expect(error(await patch(op.api_key, us, { account_name: 'X' }))).toEqual([
        400,
        'callback_url is required for non-African countries',
      ]);
      expect(error(await patch(op.api_key, sub, { account_name: 'X' }))).toEqual([
        400,
        'Payout has not been set up for this merchant',
      ]);
      const plain = await t.merchant();
      expect(error(await patch(plain.api_key, sub, { account_name: 'X' }))).toEqual([
        403,
        'This endpoint is restricted to marketplace operators',
      ]);
      const other = await operator();
      expect(error(await patch(other.api_key, sub, { account_name: 'X' }))).toEqual([
        404,
        'Active merchant relationship not found',
      ]);

      // No payout account found: payouts set up, then a resubmission on the connected route detached the account.
      const moved = await subMerchant(op.api_key);
      const first = await submit(op.api_key, moved, kycBody({ account_name: 'Ngozi Eze' }));
      expect((await api(op.api_key, 'POST', `/marketplace/merchants/${moved}/payout`, {})).status).toBe(200);
      await sandboxDecide(op.api_key, first.body.data.id, 'reject', { reason: 'Owner holds a US passport' });
      expect((await submit(op.api_key, moved, connectedBody)).status).toBe(200);
      expect(error(await patch(op.api_key, moved, { account_name: 'X' }))).toEqual([400, 'No payout account found']);

      // Merchant portfolio not found: the relationship is there, the business record is gone.
      const orphan = await subMerchant(op.api_key);
      await (await t.db('marketplace')).collection('merchants').deleteOne({ _id: orphan as never });
      expect(error(await patch(op.api_key, orphan, { account_name: 'X' }))).toEqual([
        404,
        'Merchant portfolio not found',
      ]);
    });

    it('first-time setup adopts the verified KYC account; PATCH changes it; unknown banks name the field; GetPayoutAccount is masked', async () => {
      const sub = await subMerchant(op.api_key);
      const url = `/marketplace/merchants/${sub}/payout`;
      expect(error(await api(op.api_key, 'POST', url, {}))).toEqual([
        400,
        'KYC has not been submitted for this merchant',
      ]);
      expect((await submit(op.api_key, sub, kycBody())).body.data.status).toBe('approved');
      const setup = await api(op.api_key, 'POST', url, {});
      expect(setup.body).toEqual({
        success: true,
        message: 'Payout account set up',
        data: {
          merchant_id: sub,
          bank_name: 'Access Bank',
          bank_account_number: `******${ACCESS.slice(-4)}`,
          bank_account_name: 'ADEBAYO JOHN',
          baseline_currency: 'NGN',
          country: 'NG',
          settlement_currency: 'NGN',
          institution_id: expect.any(String),
          account_number_type: 'bank_account_number',
        },
      });
      expect((await api(op.api_key, 'POST', url, {})).status).toBe(409);
      const unknown = await api(op.api_key, 'PATCH', url, {
        settlement_bank: 'Bank of Atlantis',
        account_number: ZENITH,
      });
      expect([unknown.status, unknown.body.error.param, unknown.body.message]).toEqual([
        400,
        'settlement_bank',
        'settlement_bank "Bank of Atlantis" is not a supported bank; see GET /marketplace/payout/banks',
      ]);
      const ghana = await api(op.api_key, 'PATCH', url, {
        settlement_bank: 'GCB Bank',
        account_number: '1234567890123',
      });
      expect([ghana.status, ghana.body.error.param]).toEqual([400, 'settlement_bank']);
      expect((await api(op.api_key, 'PATCH', url, { account_number: wrongCheckDigit(ACCESS) })).body.error.param).toBe(
        'account_number',
      );
      const moved = await api(op.api_key, 'PATCH', url, {
        settlement_bank: 'Zenith Bank',
        account_number: ZENITH,
        account_name: 'John Adebayo',
      });
      expect(moved.body).toMatchObject({
        message: 'Payout account updated',
        data: {
          bank_name: 'Zenith Bank',
          bank_account_number: `******${ZENITH.slice(-4)}`,
          bank_account_name: 'John Adebayo',
        },
      });
      expect(await status(op.api_key, sub)).toMatchObject({ status: 'approved', payouts_enabled: true });

      const account = await kycGrpc.call(
        'GetPayoutAccount',
        { merchant_id: sub, mode: 'sandbox' },
        callerToMetadata({ requestId: newRequestId(), auth: 'internal' }),
      );
      expect(account).toMatchObject({
        merchant_id: sub,
        mode: 'sandbox',
        kyc_status: 'approved',
        payout_eligible: true,
        currency: 'NGN',
        payment_gateway: 'naira_gateway',
        payout_method: 'bank_transfer',
        bank_name: 'Zenith Bank',
        account_number_masked: `******${ZENITH.slice(-4)}`,
      });
      expect(JSON.stringify(account)).not.toContain(ZENITH);
      await expect(
        kycGrpc.call(
          'GetPayoutAccount',
          { merchant_id: sub, mode: 'sandbox' },
          callerToMetadata({ requestId: newRequestId(), auth: 'api_key', merchantId: op.merchant_id, mode: 'sandbox' }),
        ),
      ).rejects.toMatchObject({ errorCode: 'PERMISSION_DENIED' });
      await expect(
        kycGrpc.call(
          'GetPayoutAccount',
          { merchant_id: sub, mode: 'live' },
          callerToMetadata({ requestId: newRequestId(), auth: 'internal' }),
        ),
      ).rejects.toMatchObject({ errorCode: 'KYC_NOT_SUBMITTED' });
    });

    it('mobile money: a Ghanaian merchant pays out to an E.164 phone number', async () => {
      const sub = await subMerchant(op.api_key, 'GH', 'GHS');
      const body = kycBody(
        { country: 'GH', bank_name: 'MTN Mobile Money', account_number: '024 123 4567', account_name: 'John Adebayo' },
        { id_country: 'GH', owner: { ...ghOwner, id_type: 'ghana_card', id_number: 'GHA-123456789-0' } },
      );
      expect((await submit(op.api_key, sub, body)).body.data).toMatchObject({
        status: 'pending_review',
        settlement_currency: 'GHS',
      });
      const setup = await api(op.api_key, 'POST', `/marketplace/merchants/${sub}/payout`, {});
      expect(setup.body.data).toMatchObject({
        bank_name: 'MTN Mobile Money',
        account_number_type: 'phone_number',
        bank_account_number: '+********4567',
      });
      const bad = await api(op.api_key, 'PATCH', `/marketplace/merchants/${sub}/payout`, { account_number: '12345' });
      expect([bad.status, bad.body.message]).toEqual([
        400,
        'account_number must be a phone number in international format (E.164) for MTN Mobile Money',
      ]);
    });
  });

  describe('mode isolation, events and data protection', () => {
    it('sandbox and live KYC and payouts are separate data', async () => {
      const sub = await subMerchant(op.api_key, 'NG', 'NGN', opLive);
      expect((await submit(op.api_key, sub, kycBody())).body.data.status).toBe('approved');
      expect(await status(opLive, sub)).toMatchObject({ status: 'not_started', id: null, provider: null });
      expect((await api(op.api_key, 'POST', `/marketplace/merchants/${sub}/payout`, {})).status).toBe(200);
      expect(error(await api(opLive, 'PATCH', `/marketplace/merchants/${sub}/payout`, { account_name: 'X' }))).toEqual([
        400,
        'Payout has not been set up for this merchant',
      ]);
      const liveSubmission = await submit(opLive, sub, kycBody());
      expect(liveSubmission.body.data.status).toBe('approved');
      expect(liveSubmission.body.data.id).not.toBe((await status(op.api_key, sub)).id);
    });

    it('publishes kyc.submission.updated to the operator, and marketplace records payout eligibility per mode', async () => {
      const sub = await subMerchant(op.api_key);
      const res = await submit(op.api_key, sub, kycBody());
      const id = res.body.data.id as number;
      const event = async () => {
        const stored = await nats.jsm.streams
          .getMessage('KYC', { last_by_subj: 'kyc.submission.updated' })
          .catch(() => null);
        return stored ? { msgId: stored.header.get('Nats-Msg-Id'), envelope: stored.json<EventEnvelope>() } : null;
      };
      const published = async () =>
        ((await event())?.envelope.data as KycSubmissionUpdated | undefined)?.submission_id === id;
      expect(await eventually(published, 10_000)).toBe(true);
      const { msgId, envelope } = (await event())!;
      expect(msgId).toBe(envelope.event_id);
      expect(envelope).toMatchObject({
        subject: 'kyc.submission.updated',
        merchant_id: op.merchant_id,
        mode: 'sandbox',
        data: {
          submission_id: id,
          merchant_id: sub,
          marketplace_id: op.merchant_id,
          status: 'approved',
          previous_status: 'not_started',
          change: 'auto_approved',
          provider: 'service',
          settlement_currency: 'NGN',
          payout_eligible: false,
        },
      });
      expect(JSON.stringify(envelope)).not.toContain(ACCESS);
      await api(op.api_key, 'POST', `/marketplace/merchants/${sub}/payout`, {});
      const listed = async (key: string) =>
        (
          (await api(key, 'GET', '/marketplace/merchants?limit=100')).body.data.merchants as {
            merchant_id: number;
            kyc_status: string;
            payouts_enabled: boolean;
          }[]
        ).find((m) => m.merchant_id === sub);
      expect(await eventually(async () => (await listed(op.api_key))?.payouts_enabled === true, 10_000)).toBe(true);
      expect(await listed(op.api_key)).toMatchObject({ kyc_status: 'approved', payouts_enabled: true });
      // The relationship exists in sandbox only: live keys do not see it at all.
      expect(await listed(opLive)).toBeUndefined();
      const stored = await (await t.db('marketplace')).collection('merchants').findOne({ _id: sub as never });
      expect(stored?.payout_eligibility?.sandbox).toMatchObject({
        kyc_status: 'approved',
        payouts_enabled: true,
        settlement_currency: 'NGN',
      });
    });

    it('account and ID numbers are encrypted at rest and never logged', async () => {
      const sub = await subMerchant(op.api_key);
      const marker = nuban('058', String(100_000_000 + Math.floor(Math.random() * 800_000_000)));
      const id = '9' + String(Math.floor(Math.random() * 1e10)).padStart(10, '0');
      await submit(
        op.api_key,
        sub,
        kycBody({ bank_name: 'Guaranty Trust Bank', account_number: marker }, { owner: { ...owner, id_number: id } }),
      );
      const docs = await (await t.db('kyc')).collection('kyc_cases').find({ merchant_id: sub }).toArray();
      expect(docs).toHaveLength(1);
      const raw = JSON.stringify(docs);
      expect(raw).not.toContain(marker);
      expect(raw).not.toContain(id);
      expect(docs[0]!.bank_account.account_number_sealed).toMatchObject({
        key_id: 'k1',
        iv: expect.any(String),
        tag: expect.any(String),
      });
      // A failed request with the number in it must not log it either.
      await submit(
        op.api_key,
        sub,
        kycBody({ bank_name: 'Guaranty Trust Bank', account_number: marker }, { owner: { ...owner, id_number: id } }),
      );
      const logs = ['kyc', 'gateway', 'marketplace']
        .map((name) => path.join(TEST_INFRA.dir, 'logs', 'kyc', `${name}.log`))
        .filter((f) => fs.existsSync(f))
        .map((f) => fs.readFileSync(f, 'utf8'))
        .join('\n');
      expect(logs.length).toBeGreaterThan(0);
      expect(logs).not.toContain(marker);
      expect(logs).not.toContain(id);
    });

    it('refuses non-https document URLs', async () => {
      const sub = await subMerchant(op.api_key);
      const res = await submit(
        op.api_key,
        sub,
        kycBody({}, { owner: { ...owner, selfie_url: 'http://files.example.com/selfie.png' } }),
      );
      expect([res.status, res.body.error.param, res.body.message]).toEqual([
        400,
        'owner.selfie_url',
        'owner.selfie_url must be an absolute https URL',
      ]);
    });
  });
});
