import * as fs from 'node:fs';
import * as path from 'node:path';
import { newRequestId, type EventEnvelope, type KycSubmissionUpdated } from '@ppay/kernel';
import { callerToMetadata } from '@ppay/runtime';
import { TEST_INFRA } from '../support/infra';
import { eventually } from '../support/platform';
import {
  ACCESS,
  connectedBody,
  error,
  ghOwner,
  kycBody,
  kycWorld,
  nuban,
  owner,
  wrongCheckDigit,
  ZENITH,
} from '../support/kyc-world';

/**
 * Spec 7.3, 4.9 and 7.4 end to end: the payout banks directory, payout setup and update; and KYC's
 * mode isolation, its events, and the encryption of account and ID numbers.
 */
describe('sub-merchant onboarding: payout banks, payout accounts, modes and data protection', () => {
  const w = kycWorld('kyc-payouts');
  const { api, operator, subMerchant, submit, status, sandboxDecide } = w;

  describe('spec 7.3: payout banks', () => {
    it('NGN returns Nigerian institutions only, omitted returns all, an unknown currency is a clear 400', async () => {
      const ngn = await api(w.op.api_key, 'GET', '/marketplace/payout/banks?currency=NGN');
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
      const all = await api(w.op.api_key, 'GET', '/marketplace/payout/banks');
      expect(all.body.data).toHaveLength(72);
      expect(all.body.data.find((b: { name: string }) => b.name === 'M-PESA')).toMatchObject({
        currency: 'KES',
        account_number_type: 'phone_number',
      });
      const usd = await api(w.op.api_key, 'GET', '/marketplace/payout/banks?currency=USD');
      expect([usd.status, usd.body.message, usd.body.error.param]).toEqual([
        400,
        'currency must be one of GHS, KES, NGN, ZAR',
        'currency',
      ]);
      expect(error(await api(undefined, 'GET', '/marketplace/payout/banks'))).toEqual([401, 'Unauthorized']);
      // Like every spec 4.9 endpoint, for marketplace operators only.
      const plain = await w.t.merchant();
      expect(error(await api(plain.api_key, 'GET', '/marketplace/payout/banks'))).toEqual([
        403,
        'This endpoint is restricted to marketplace operators',
      ]);
    });
  });

  describe('spec 4.9 / 7.4: payout setup and update', () => {
    it('7.4 messages, each in its condition', async () => {
      const sub = await subMerchant(w.op.api_key);
      const us = await subMerchant(w.op.api_key, 'US', 'USD');
      const patch = (key: string, id: number, body: unknown) =>
        api(key, 'PATCH', `/marketplace/merchants/${id}/payout`, body);
      expect(error(await patch(w.op.api_key, sub, {}))).toEqual([400, 'At least one field must be provided']);
      expect(error(await patch(w.op.api_key, us, { account_name: 'X' }))).toEqual([
        400,
        'callback_url is required for non-African countries',
      ]);
      expect(error(await patch(w.op.api_key, sub, { account_name: 'X' }))).toEqual([
        400,
        'Payout has not been set up for this merchant',
      ]);
      const plain = await w.t.merchant();
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
      const moved = await subMerchant(w.op.api_key);
      const first = await submit(w.op.api_key, moved, kycBody({ account_name: 'Ngozi Eze' }));
      expect((await api(w.op.api_key, 'POST', `/marketplace/merchants/${moved}/payout`, {})).status).toBe(200);
      await sandboxDecide(w.op.api_key, first.body.data.id, 'reject', { reason: 'Owner holds a US passport' });
      expect((await submit(w.op.api_key, moved, connectedBody)).status).toBe(200);
      expect(error(await patch(w.op.api_key, moved, { account_name: 'X' }))).toEqual([400, 'No payout account found']);

      // Merchant portfolio not found: the relationship is there, the business record is gone.
      const orphan = await subMerchant(w.op.api_key);
      await (await w.t.db('marketplace')).collection('merchants').deleteOne({ _id: orphan as never });
      expect(error(await patch(w.op.api_key, orphan, { account_name: 'X' }))).toEqual([
        404,
        'Merchant portfolio not found',
      ]);
    });

    it('first-time setup adopts the verified KYC account; PATCH changes it; unknown banks name the field; GetPayoutAccount is masked', async () => {
      const sub = await subMerchant(w.op.api_key);
      const url = `/marketplace/merchants/${sub}/payout`;
      expect(error(await api(w.op.api_key, 'POST', url, {}))).toEqual([
        400,
        'KYC has not been submitted for this merchant',
      ]);
      expect((await submit(w.op.api_key, sub, kycBody())).body.data.status).toBe('approved');
      const setup = await api(w.op.api_key, 'POST', url, {});
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
          change_status: 'applied',
          institution_id: expect.any(String),
          account_number_type: 'bank_account_number',
        },
      });
      expect((await api(w.op.api_key, 'POST', url, {})).status).toBe(409);
      const unknown = await api(w.op.api_key, 'PATCH', url, {
        settlement_bank: 'Bank of Atlantis',
        account_number: ZENITH,
      });
      expect([unknown.status, unknown.body.error.param, unknown.body.message]).toEqual([
        400,
        'settlement_bank',
        'settlement_bank "Bank of Atlantis" is not a supported bank; see GET /marketplace/payout/banks',
      ]);
      const ghana = await api(w.op.api_key, 'PATCH', url, {
        settlement_bank: 'GCB Bank',
        account_number: '1234567890123',
      });
      expect([ghana.status, ghana.body.error.param]).toEqual([400, 'settlement_bank']);
      expect(
        (await api(w.op.api_key, 'PATCH', url, { account_number: wrongCheckDigit(ACCESS) })).body.error.param,
      ).toBe('account_number');
      const moved = await api(w.op.api_key, 'PATCH', url, {
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
      expect(await status(w.op.api_key, sub)).toMatchObject({ status: 'approved', payouts_enabled: true });

      const account = await w.kycGrpc.call(
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
        w.kycGrpc.call(
          'GetPayoutAccount',
          { merchant_id: sub, mode: 'sandbox' },
          callerToMetadata({
            requestId: newRequestId(),
            auth: 'api_key',
            merchantId: w.op.merchant_id,
            mode: 'sandbox',
          }),
        ),
      ).rejects.toMatchObject({ errorCode: 'PERMISSION_DENIED' });
      await expect(
        w.kycGrpc.call(
          'GetPayoutAccount',
          { merchant_id: sub, mode: 'live' },
          callerToMetadata({ requestId: newRequestId(), auth: 'internal' }),
        ),
      ).rejects.toMatchObject({ errorCode: 'KYC_NOT_SUBMITTED' });
    });

    it('mobile money: a Ghanaian merchant pays out to an E.164 phone number', async () => {
      const sub = await subMerchant(w.op.api_key, 'GH', 'GHS');
      const body = kycBody(
        { country: 'GH', bank_name: 'MTN Mobile Money', account_number: '024 123 4567', account_name: 'John Adebayo' },
        { id_country: 'GH', owner: { ...ghOwner, id_type: 'ghana_card', id_number: 'GHA-123456789-0' } },
      );
      expect((await submit(w.op.api_key, sub, body)).body.data).toMatchObject({
        status: 'pending_review',
        settlement_currency: 'GHS',
      });
      const setup = await api(w.op.api_key, 'POST', `/marketplace/merchants/${sub}/payout`, {});
      expect(setup.body.data).toMatchObject({
        bank_name: 'MTN Mobile Money',
        account_number_type: 'phone_number',
        bank_account_number: '+********4567',
      });
      const bad = await api(w.op.api_key, 'PATCH', `/marketplace/merchants/${sub}/payout`, { account_number: '12345' });
      expect([bad.status, bad.body.message]).toEqual([
        400,
        'account_number must be a phone number in international format (E.164) for MTN Mobile Money',
      ]);
    });
  });

  describe('mode isolation, events and data protection', () => {
    it('sandbox and live KYC and payouts are separate data', async () => {
      const sub = await subMerchant(w.op.api_key, 'NG', 'NGN', w.opLive);
      expect((await submit(w.op.api_key, sub, kycBody())).body.data.status).toBe('approved');
      expect(await status(w.opLive, sub)).toMatchObject({ status: 'not_started', id: null, provider: null });
      expect((await api(w.op.api_key, 'POST', `/marketplace/merchants/${sub}/payout`, {})).status).toBe(200);
      expect(
        error(await api(w.opLive, 'PATCH', `/marketplace/merchants/${sub}/payout`, { account_name: 'X' })),
      ).toEqual([400, 'Payout has not been set up for this merchant']);
      const liveSubmission = await submit(w.opLive, sub, kycBody());
      // Live is reviewed by hand until a name-enquiry provider is configured (Hardening 2 item 6).
      expect(liveSubmission.body.data.status).toBe('pending_review');
      expect(liveSubmission.body.data.id).not.toBe((await status(w.op.api_key, sub)).id);
    });

    it('publishes kyc.submission.updated to the operator, and marketplace records payout eligibility per mode', async () => {
      const sub = await subMerchant(w.op.api_key);
      const res = await submit(w.op.api_key, sub, kycBody());
      const id = res.body.data.id as number;
      const event = async () => {
        const stored = await w.nats.jsm.streams
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
        merchant_id: w.op.merchant_id,
        mode: 'sandbox',
        data: {
          submission_id: id,
          merchant_id: sub,
          marketplace_id: w.op.merchant_id,
          status: 'approved',
          previous_status: 'not_started',
          change: 'auto_approved',
          provider: 'service',
          settlement_currency: 'NGN',
          payout_eligible: false,
        },
      });
      expect(JSON.stringify(envelope)).not.toContain(ACCESS);
      await api(w.op.api_key, 'POST', `/marketplace/merchants/${sub}/payout`, {});
      const listed = async (key: string) =>
        (
          (await api(key, 'GET', '/marketplace/merchants?limit=100')).body.data.merchants as {
            merchant_id: number;
            kyc_status: string;
            payouts_enabled: boolean;
          }[]
        ).find((m) => m.merchant_id === sub);
      expect(await eventually(async () => (await listed(w.op.api_key))?.payouts_enabled === true, 10_000)).toBe(true);
      expect(await listed(w.op.api_key)).toMatchObject({ kyc_status: 'approved', payouts_enabled: true });
      // The relationship exists in sandbox only: live keys do not see it at all.
      expect(await listed(w.opLive)).toBeUndefined();
      const stored = await (await w.t.db('marketplace')).collection('merchants').findOne({ _id: sub as never });
      expect(stored?.payout_eligibility?.sandbox).toMatchObject({
        kyc_status: 'approved',
        payouts_enabled: true,
        settlement_currency: 'NGN',
      });
    });

    it('account and ID numbers are encrypted at rest and never logged', async () => {
      const sub = await subMerchant(w.op.api_key);
      const marker = nuban('058', String(100_000_000 + Math.floor(Math.random() * 800_000_000)));
      const id = '9' + String(Math.floor(Math.random() * 1e10)).padStart(10, '0');
      await submit(
        w.op.api_key,
        sub,
        kycBody({ bank_name: 'Guaranty Trust Bank', account_number: marker }, { owner: { ...owner, id_number: id } }),
      );
      const docs = await (await w.t.db('kyc')).collection('kyc_cases').find({ merchant_id: sub }).toArray();
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
        w.op.api_key,
        sub,
        kycBody({ bank_name: 'Guaranty Trust Bank', account_number: marker }, { owner: { ...owner, id_number: id } }),
      );
      const logs = ['kyc', 'gateway', 'marketplace']
        .map((name) => path.join(TEST_INFRA.dir, 'logs', w.suite, `${name}.log`))
        .filter((f) => fs.existsSync(f))
        .map((f) => fs.readFileSync(f, 'utf8'))
        .join('\n');
      expect(logs.length).toBeGreaterThan(0);
      expect(logs).not.toContain(marker);
      expect(logs).not.toContain(id);
    });

    it('refuses non-https document URLs', async () => {
      const sub = await subMerchant(w.op.api_key);
      const res = await submit(
        w.op.api_key,
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
