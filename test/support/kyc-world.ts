import { randomBytes } from 'node:crypto';
import { connectNats, createLogger, ServiceClient, type NatsContext } from '@ppay/runtime';
import { loadPlatformProto, type types } from '@ppay/proto';
import type { NewMerchant } from '@ppay/devstack';
import { nubanCheckDigit } from '../../services/kyc/src/submissions/account-numbers';
import { testInfraUrls } from './infra';
import { http, startTestPlatform, type TestPlatform } from './platform';
import { aroundSuite, type SuiteWorld } from './suite-world';

/**
 * What the sub-merchant onboarding suites (spec 2.7, 2.8, 3.3, 4.9, 7.2–7.4: KYC on both routes, the
 * review queue and the sandbox helpers, the payout banks directory, payout setup and update, events,
 * mode isolation, encryption) share: account numbers, request bodies, and a world with the platform,
 * an operator and the API helpers.
 */
export const nuban = (code: string, serial: string) => serial + String(nubanCheckDigit(code, serial));
export const ACCESS = nuban('044', '069012345');
export const ZENITH = nuban('057', '101234567');
export const KUDA = nuban('950211', '200123456');
export const wrongCheckDigit = (n: string) => n.slice(0, 9) + String((Number(n[9]) + 1) % 10);
export const NIN = '12345678901';

export const owner = {
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
export const ghOwner = {
  first_name: 'John',
  last_name: 'Adebayo',
  date_of_birth: '1990-05-17',
  id_type: 'passport',
  id_number: 'G1234567',
};
export const kycBody = (bank: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
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
export const connectedBody = {
  country: 'US',
  business_type: 'individual',
  return_url: 'https://shop.example.com/return',
  refresh_url: 'https://shop.example.com/refresh',
};

/** An API answer as [status, message], for the error assertions. */
export const error = (res: { status: number; body: any }) => [res.status, res.body.message];
export const email = () => `sub${randomBytes(5).toString('hex')}@example.com`;

/** A marketplace operator with a sandbox key (`api_key`) and a live key (`live_key`). */
export type Operator = NewMerchant & { live_key: string };

/**
 * One suite file's platform (started under the suite's name: its ports and its log directory), its
 * operator `op` (with the live key `opLive`) and a platform administrator, and the API helpers.
 * The fields are set once the suite's beforeAll has run.
 */
export class KycWorld implements SuiteWorld {
  t!: TestPlatform;
  nats!: NatsContext;
  kycGrpc!: ServiceClient<types.kyc.KycServiceClient>;
  op!: Operator;
  opLive!: string;
  private admin!: string;

  constructor(readonly suite: string) {}

  readonly api = (key: string | undefined, method: string, url: string, body?: unknown) =>
    http(this.t.url, method, `/api/v1/partner${url}`, { headers: key ? { 'x-api-key': key } : {}, body });
  readonly adminApi = (method: string, url: string, body?: unknown, token = this.admin) =>
    http(this.t.url, method, `/api/v1/admin${url}`, { headers: { 'x-id-key': token }, body });

  /** A marketplace operator with a sandbox key (`api_key`) and a live key. */
  readonly operator = async (): Promise<Operator> => {
    const o = await this.t.merchant({ marketplace: true, country: 'NG', currency: 'NGN' });
    expect((await this.api(o.api_key, 'POST', '/marketplace/setup', { marketplace_name: 'Crafts' })).status).toBe(200);
    const live = await http(this.t.url, 'POST', '/api/v1/partner/create-api-key', {
      headers: { 'x-id-key': o.user_token },
      body: { mode: 'live', name: 'live' },
    });
    expect(live.status).toBe(201);
    const liveKey = live.body.data.api_key as string;
    // Marketplace data is separate per mode (issue 9): the live marketplace is set up on its own.
    expect((await this.api(liveKey, 'POST', '/marketplace/setup', { marketplace_name: 'Crafts' })).status).toBe(200);
    return { ...o, live_key: liveKey };
  };
  /** A new business under the operator; with `alsoKey`, linked in that key's mode too (same fields). */
  readonly subMerchant = async (opKey: string, country = 'NG', currency = 'NGN', alsoKey?: string) => {
    const fields = { email: email(), business_name: 'Ada Foods', country, baseline_currency: currency };
    const res = await this.api(opKey, 'POST', '/marketplace/merchants', fields);
    expect(res.status).toBe(201);
    if (alsoKey) {
      const other = await this.api(alsoKey, 'POST', '/marketplace/merchants', fields);
      expect([other.status, other.body.data?.merchant_id]).toEqual([201, res.body.data.merchant_id]);
    }
    return res.body.data.merchant_id as number;
  };
  readonly submit = (key: string, merchantId: number, body: unknown) =>
    this.api(key, 'POST', `/marketplace/merchants/${merchantId}/kyc`, body);
  readonly status = async (key: string, merchantId: number) =>
    (await this.api(key, 'GET', `/marketplace/merchants/${merchantId}/kyc`)).body.data;
  readonly sandboxDecide = (key: string, id: number, action: string, body: unknown = {}) =>
    this.api(key, 'POST', `/sandbox/kyc/${id}/${action}`, body);

  async start(): Promise<void> {
    this.t = await startTestPlatform(this.suite);
    this.nats = await connectNats(testInfraUrls().natsUrl, 'kyc-test', createLogger('kyc-test', 'silent'));
    this.kycGrpc = new ServiceClient(
      'kyc',
      loadPlatformProto().ppay.kyc.v1.KycService,
      this.t.platform.grpcAddress('kyc'),
      { deadlineMs: 10_000 },
    );
    const o = await this.operator();
    this.op = o;
    this.opLive = o.live_key;
    this.admin = await this.t.adminToken('usr_reviewer');
  }

  async stop(): Promise<void> {
    this.kycGrpc?.close();
    await this.nats?.nc.drain();
    await this.t?.stop();
  }
}

/** The world of one suite file: call it once in the file's top describe, which starts and stops it. */
export const kycWorld = (suite: string): KycWorld => aroundSuite(new KycWorld(suite));
