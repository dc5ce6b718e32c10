import { http } from '../support/platform';
import { ACCESS, error, ghOwner, KUDA, kycBody, kycWorld, NIN, owner, wrongCheckDigit } from '../support/kyc-world';

/**
 * Spec 7.2, 3.3 and 4.9 end to end: the KYC submit errors, the in-house route and its auto-approval,
 * and every transition, by the sandbox helpers and by the admin review queue.
 */
describe('sub-merchant onboarding: KYC submission and review', () => {
  const w = kycWorld('kyc-submission');
  const { api, adminApi, operator, subMerchant, submit, status, sandboxDecide } = w;

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
      const sub = await subMerchant(w.op.api_key);
      const res = await submit(w.op.api_key, sub, body);
      expect([res.status, res.body.message, res.body.error.code]).toEqual([400, message, 'VALIDATION_FAILED']);
    });

    it('the operator and relationship checks come before a body error (Hardening 2 item 12)', async () => {
      const plain = await w.t.merchant();
      const sub = await subMerchant(w.op.api_key);
      const incomplete = { id_country: 'NG', account_type: 'individual', owner: { first_name: 'Ada' } };
      for (const body of [{}, incomplete, { ...incomplete, colour: 'red' }]) {
        expect(error(await submit(plain.api_key, sub, body))).toEqual([
          403,
          'This endpoint is restricted to marketplace operators',
        ]);
        expect(error(await submit(w.op.api_key, 999_999, body))).toEqual([
          404,
          'Active merchant relationship not found',
        ]);
      }
      expect(error(await submit(w.op.api_key, sub, incomplete))).toEqual([400, 'owner.last_name is required']);
    });

    it('401 Unauthorized without a valid key', async () => {
      const sub = await subMerchant(w.op.api_key);
      for (const key of [undefined, 'pk_sandbox_' + 'A'.repeat(32)]) {
        expect(error(await submit(key as string, sub, kycBody()))).toEqual([401, 'Unauthorized']);
      }
    });

    it('403 for a merchant that is not a marketplace operator', async () => {
      const plain = await w.t.merchant();
      const sub = await subMerchant(w.op.api_key);
      expect(error(await submit(plain.api_key, sub, kycBody()))).toEqual([
        403,
        'This endpoint is restricted to marketplace operators',
      ]);
      expect((await api(plain.api_key, 'GET', `/marketplace/merchants/${sub}/kyc`)).status).toBe(403);
    });

    it('404 for an unknown merchant, another marketplace’s, a suspended and an invited one', async () => {
      const other = await operator();
      const foreign = await subMerchant(other.api_key);
      const suspended = await subMerchant(w.op.api_key);
      expect((await api(w.op.api_key, 'DELETE', `/marketplace/merchants/${suspended}`)).status).toBe(200);
      const existing = await w.t.merchant();
      const invited = await api(w.op.api_key, 'POST', '/marketplace/merchants', { merchant_id: existing.merchant_id });
      expect(invited.body.data.status).toBe('pending');
      for (const id of [999_999, foreign, suspended, existing.merchant_id]) {
        expect([id, ...error(await submit(w.op.api_key, id, kycBody()))]).toEqual([
          id,
          404,
          'Active merchant relationship not found',
        ]);
        expect((await api(w.op.api_key, 'GET', `/marketplace/merchants/${id}/kyc`)).status).toBe(404);
      }
    });
  });

  describe('in-house route and auto-approval (spec 3.3, 4.9)', () => {
    it('approves valid Nigerian bank details without mismatch at once; the response is exactly spec 4.9', async () => {
      const sub = await subMerchant(w.op.api_key);
      const res = await submit(w.op.api_key, sub, kycBody());
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
      expect(await status(w.op.api_key, sub)).toMatchObject({
        id: res.body.data.id,
        status: 'approved',
        merchant_id: sub,
      });
    });

    it('a submission for review says review within 24 hours', async () => {
      const sub = await subMerchant(w.op.api_key);
      const res = await submit(w.op.api_key, sub, kycBody({ account_name: 'Ngozi Eze' }));
      expect([res.status, res.body.message, res.body.data.status, res.body.data.reviewed_at]).toEqual([
        200,
        'KYC submitted successfully. It will be reviewed within 24 hours.',
        'pending_review',
        null,
      ]);
    });

    it('refuses auto-approval, with the evidence kept for the reviewer (live queue: no name-enquiry provider)', async () => {
      const unconfigured = { provider: null, outcome: 'unconfigured', account_name: null };
      const cases: [string, Record<string, unknown>, Record<string, unknown>, string[]][] = [
        // Valid in every other way: live is never approved on the typed name (Hardening 2 item 6).
        ['valid bank details', {}, {}, ['name_enquiry_unconfigured']],
        [
          'bad check digit at a microfinance bank',
          { bank_name: 'Kuda Microfinance Bank', account_number: wrongCheckDigit(KUDA) },
          {},
          ['invalid_nuban', 'name_enquiry_unconfigured'],
        ],
        [
          'country mismatch',
          { account_name: 'ADEBAYO JOHN' },
          { id_country: 'GH', owner: ghOwner },
          ['country_mismatch', 'name_enquiry_unconfigured'],
        ],
        ['name mismatch', { account_name: 'Chinedu Okafor' }, {}, ['name_enquiry_unconfigured', 'name_mismatch:0.00']],
      ];
      for (const [what, bank, extra, reasons] of cases) {
        const sub = await subMerchant(w.opLive);
        const res = await submit(w.opLive, sub, kycBody(bank, extra));
        expect([what, res.status, res.body.data.status]).toEqual([what, 200, 'pending_review']);
        const review = await adminApi('GET', `/kyc/submissions/${res.body.data.id}`);
        expect([what, review.body.data.review]).toEqual([
          what,
          { decision: 'manual_review', reasons, name_match_score: expect.any(Number), name_enquiry: unconfigured },
        ]);
        if (what === 'country mismatch') expect(res.body.data.country_mismatch).toBe(true);
      }
    });

    it("sandbox's name enquiry answers from its table: another holder, no account, no answer go to review", async () => {
      // The reasons (name_mismatch, account_not_found, name_enquiry_unavailable) are kept with the
      // review; sandbox reviews are decided with the sandbox helper, not the admin queue.
      for (const number of ['0000000017', '0000000024', '0000000031']) {
        const sub = await subMerchant(w.op.api_key);
        const res = await submit(w.op.api_key, sub, kycBody({ account_number: number }));
        expect([number, res.status, res.body.data.status]).toEqual([number, 200, 'pending_review']);
      }
    });

    it('refuses a bad check digit at a commercial bank and an unknown bank with a 400 naming the field', async () => {
      const sub = await subMerchant(w.op.api_key);
      const bad = await submit(w.op.api_key, sub, kycBody({ account_number: wrongCheckDigit(ACCESS) }));
      expect([bad.status, bad.body.error.param, bad.body.message]).toEqual([
        400,
        'bank_account.account_number',
        'bank_account.account_number must be a valid 10-digit NUBAN for Access Bank',
      ]);
      const unknown = await submit(w.op.api_key, sub, kycBody({ bank_name: 'First Bank of Mars' }));
      expect([unknown.status, unknown.body.error.param, unknown.body.message]).toEqual([
        400,
        'bank_account.bank_name',
        'bank_account.bank_name "First Bank of Mars" is not a supported bank; see GET /marketplace/payout/banks',
      ]);
      expect((await status(w.op.api_key, sub)).status).toBe('not_started');
    });

    it('takes the flat (legacy) body with a registered business', async () => {
      const sub = await subMerchant(w.op.api_key);
      const res = await submit(w.op.api_key, sub, {
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
      const missing = await submit(w.op.api_key, sub, {
        country: 'NG',
        account_type: 'individual',
        first_name: 'John',
      });
      expect([missing.status, missing.body.error.param]).toEqual([400, 'last_name']);
    });
  });

  describe('spec 3.3: every transition, by the sandbox helpers and the admin API', () => {
    it('sandbox: reject → resubmit → request info → resubmit → approve → revoke; illegal moves are 409 with the status', async () => {
      const sub = await subMerchant(w.op.api_key);
      const first = await submit(w.op.api_key, sub, kycBody({ account_name: 'Ngozi Eze' }));
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
      await conflict(submit(w.op.api_key, sub, kycBody()), 'pending_review', 'submit');
      await conflict(sandboxDecide(w.op.api_key, id, 'revoke', { reason: 'Fraud ring' }), 'pending_review', 'revoke');
      const rejected = await sandboxDecide(w.op.api_key, id, 'reject', { reason: 'Selfie does not match' });
      expect(rejected.body.data).toMatchObject({ status: 'rejected', rejection_reason: 'Selfie does not match' });
      expect(rejected.body.data.reviewed_at).toEqual(expect.any(String));
      await conflict(sandboxDecide(w.op.api_key, id, 'approve'), 'rejected', 'approve');
      // A valid resubmission is not auto-approved: it goes back to a person.
      expect((await submit(w.op.api_key, sub, kycBody())).body.data).toMatchObject({ id, status: 'pending_review' });
      const info = await sandboxDecide(w.op.api_key, id, 'request_info', { message: 'Upload the back of the ID card' });
      expect(info.body.data).toMatchObject({
        status: 'additional_info_requested',
        additional_info_request: 'Upload the back of the ID card',
      });
      expect((await submit(w.op.api_key, sub, kycBody())).body.data.status).toBe('pending_review');
      expect((await sandboxDecide(w.op.api_key, id, 'approve')).body.data.status).toBe('approved');
      await conflict(submit(w.op.api_key, sub, kycBody()), 'approved', 'submit');
      await conflict(sandboxDecide(w.op.api_key, id, 'reject', { reason: 'Too late' }), 'approved', 'reject');
      const revoked = await sandboxDecide(w.op.api_key, id, 'revoke', { reason: 'Chargeback fraud' });
      expect(revoked.body.data).toMatchObject({ status: 'revoked', rejection_reason: 'Chargeback fraud' });
      await conflict(submit(w.op.api_key, sub, kycBody()), 'revoked', 'submit');
      const bad = await sandboxDecide(w.op.api_key, id, 'reject', { reason: 'no' });
      expect([bad.status, bad.body.error.param]).toEqual([400, 'reason']);
    });

    it('sandbox helpers: live keys are refused, live and foreign submissions are not found', async () => {
      const sub = await subMerchant(w.op.api_key, 'NG', 'NGN', w.opLive);
      const sandboxId = (await submit(w.op.api_key, sub, kycBody({ account_name: 'Ngozi Eze' }))).body.data.id;
      const liveId = (await submit(w.opLive, sub, kycBody({ account_name: 'Ngozi Eze' }))).body.data.id;
      expect(error(await sandboxDecide(w.opLive, sandboxId, 'approve'))).toEqual([
        403,
        'Sandbox test helpers are only available with sandbox keys',
      ]);
      expect(error(await sandboxDecide(w.op.api_key, liveId, 'approve'))).toEqual([404, 'KYC submission not found']);
      const other = await operator();
      expect(error(await sandboxDecide(other.api_key, sandboxId, 'approve'))).toEqual([
        404,
        'KYC submission not found',
      ]);
      expect((await status(w.opLive, sub)).status).toBe('pending_review');
    });

    it('admin API: the live queue only, oldest first; approve, reject, request info, revoke; no sandbox ids', async () => {
      const subs = [await subMerchant(w.opLive), await subMerchant(w.opLive), await subMerchant(w.opLive)];
      const ids: number[] = [];
      for (const sub of subs)
        ids.push((await submit(w.opLive, sub, kycBody({ account_name: 'Ngozi Eze' }))).body.data.id);
      const sandboxSub = await subMerchant(w.op.api_key);
      const sandboxId = (await submit(w.op.api_key, sandboxSub, kycBody({ account_name: 'Ngozi Eze' }))).body.data.id;

      const queue = await adminApi('GET', '/kyc/submissions?limit=100');
      expect(queue.status).toBe(200);
      const listed = queue.body.data.submissions.map((s: { id: number }) => s.id);
      expect(listed).toEqual(expect.arrayContaining(ids));
      expect(listed).not.toContain(sandboxId);
      expect(listed.indexOf(ids[0])).toBeLessThan(listed.indexOf(ids[2]));
      const item = queue.body.data.submissions.find((s: { id: number }) => s.id === ids[0]);
      expect(item).toMatchObject({
        merchant_id: subs[0],
        marketplace_id: w.op.merchant_id,
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
      expect(await status(w.opLive, subs[1])).toMatchObject({
        status: 'rejected',
        rejection_reason: 'Forged document',
      });
      expect(await status(w.opLive, subs[2])).toMatchObject({ additional_info_request: 'Proof of address' });
    });

    it('admin API refuses merchant user tokens and missing tokens (401); the CLI mints an admin token of an hour at most', async () => {
      // A dashboard token is not an admin token (its own audience, Hardening 2 item 8).
      expect(error(await adminApi('GET', '/kyc/submissions', undefined, w.op.user_token))).toEqual([
        401,
        'Unauthorized',
      ]);
      expect((await http(w.t.url, 'GET', '/api/v1/admin/kyc/submissions')).status).toBe(401);
      const cli = await w.t.merchantCli(['admin-token', '--user', 'usr_cli_admin']);
      expect(cli.code).toBe(0);
      const minted = JSON.parse(cli.stdout) as { admin_token: string; role: string };
      expect(minted.role).toBe('platform_admin');
      expect((await adminApi('GET', '/kyc/submissions', undefined, minted.admin_token)).status).toBe(200);
      // …nor on the dashboard: the admin token does not reach merchant routes either.
      const dashboard = await http(w.t.url, 'GET', '/api/v1/partner/api-keys', {
        headers: { 'x-id-key': minted.admin_token },
      });
      expect(dashboard.status).toBe(401);
      expect((await w.t.merchantCli(['admin-token', '--expires', '12h'])).code).toBe(64);
    });
  });
});
