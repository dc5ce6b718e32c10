import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { money } from '@ppay/kernel';
import { stripeClient } from '@ppay/stripe-support';
import type { StripeSettings } from '../../services/payments/src/processors/stripe/stripe-config.adapter';
import type { TransferRequest } from '../../services/payments/src/payouts/payout-transfer';
import { StripeEventVerifier } from '../../services/payments/src/processors/stripe/stripe-events.adapter';
import { StripeTransferProcessor } from '../../services/payments/src/processors/stripe/stripe-transfers.adapter';
import { startStripeMock, stripeMockSettings, testStripeKeys, type StripeMock } from '../support/stripe-mock';

/**
 * Contract tests of the transfers that pay live connected-account payouts (issue 34 item 5, C23–C30)
 * against stripe-mock v0.203.0: each request checked against Stripe's API description. stripe-mock keeps
 * no state, so these prove the requests and the mapping of its answers; the flows are unit tests
 * (services/payments/src/processors/stripe/stripe-transfers.test.ts).
 */
const KEYS = testStripeKeys();
const EU_KEY = `sk_test_${randomBytes(12).toString('hex')}`;
let mock: StripeMock;
let settings: StripeSettings;
let outcomes: string[];
let processor: StripeTransferProcessor;

beforeAll(async () => {
  mock = await startStripeMock();
  settings = stripeMockSettings(mock, KEYS);
});
afterAll(() => mock?.stop());
beforeEach(() => {
  outcomes = [];
  processor = new StripeTransferProcessor(
    { US: stripeClient(settings), EU: stripeClient({ ...settings, secretKey: EU_KEY }) },
    { call: (op, outcome) => outcomes.push(`${op}:${outcome}`), authFailure: () => outcomes.push('auth') },
  );
});

const request = (over: Partial<TransferRequest> = {}): TransferRequest => ({
  payout_request_id: 31,
  merchant_id: 4242,
  reference: 'po-contract-1',
  amount: money(2_500, 'USD'),
  account: 'acct_1ContractSub',
  region: 'US',
  idempotency_key: 'ppay_payout_4242:live:po-contract-1_transfer',
  asked_before: false,
  ...over,
});

describe('payout transfers against stripe-mock', () => {
  it('creates a Transfer stripe-mock accepts: amount, destination, our key and metadata, no Stripe-Account', async () => {
    const answer = await processor.create(request());
    expect(answer).toEqual({ outcome: 'created', transfer_reference: expect.stringMatching(/^tr_/) });
    const create = mock.requests.pop()!;
    expect(create).toMatchObject({ method: 'POST', path: '/v1/transfers', status: 200 });
    expect(create.headers['idempotency-key']).toBe('ppay_payout_4242:live:po-contract-1_transfer');
    expect(create.headers['stripe-account']).toBeUndefined();
    expect(create.headers['stripe-version']).toBe('2026-08-26.dahlia');
    expect(create.headers.authorization).toBe(`Bearer ${KEYS.secretKey}`);
    expect(create.form).toEqual({
      amount: '2500',
      currency: 'usd',
      destination: 'acct_1ContractSub',
      transfer_group: 'ppay_payout_4242:live:po-contract-1_transfer',
      description: 'Payout po-contract-1',
      'metadata[payout_request_id]': '31',
      'metadata[payout_reference]': 'po-contract-1',
      'metadata[merchant_id]': '4242',
      'metadata[mode]': 'live',
    });
    expect(outcomes).toEqual(['transfer_create:ok']);
    expect(mock.log()).not.toMatch(/status=4\d\d/);
  });

  it('asked again: lists the payout transfer group first, then creates with the same key', async () => {
    mock.requests.length = 0;
    // stripe-mock's listed fixture is not this payout's (its metadata differs), so it is created.
    await processor.create(request({ asked_before: true }));
    const [list, create] = mock.requests;
    expect(list).toMatchObject({
      method: 'GET',
      path: '/v1/transfers?transfer_group=ppay_payout_4242%3Alive%3Apo-contract-1_transfer&limit=10',
      status: 200,
    });
    expect(create).toMatchObject({ method: 'POST', path: '/v1/transfers', status: 200 });
    expect(create!.headers['idempotency-key']).toBe('ppay_payout_4242:live:po-contract-1_transfer');
    expect(outcomes).toEqual(['transfer_list:ok', 'transfer_create:ok']);
  });

  it("an EU connected account's transfer is made with the EU platform account's key", async () => {
    await processor.create(request({ region: 'EU', amount: money(1_000, 'EUR') }));
    const create = mock.requests.pop()!;
    expect(create.status).toBe(200);
    expect(create.headers.authorization).toBe(`Bearer ${EU_KEY}`);
    expect(create.form).toMatchObject({ amount: '1000', currency: 'eur' });
  });

  it("maps a transfer.created carrying stripe-mock's Transfer shape with our metadata", async () => {
    const transfer = await stripeClient(settings).transfers.retrieve('tr_contract');
    const object = {
      ...transfer,
      destination: 'acct_1ContractSub',
      metadata: { payout_request_id: '31', payout_reference: 'po-contract-1', merchant_id: '4242', mode: 'live' },
    };
    const payload = JSON.stringify({
      id: 'evt_tr_contract',
      object: 'event',
      type: 'transfer.created',
      created: Math.floor(Date.now() / 1000),
      data: { object },
    });
    const verified = new StripeEventVerifier(Stripe.webhooks, [KEYS.webhookSecret]).verify(
      Buffer.from(payload),
      Stripe.webhooks.generateTestHeaderString({ payload, secret: KEYS.webhookSecret }),
    );
    expect(verified).toEqual({
      kind: 'event',
      event: expect.objectContaining({
        kind: 'payout_transfer',
        change: 'created',
        merchant_id: 4242,
        mode: 'live',
        payout_request_id: 31,
        payout_reference: 'po-contract-1',
        transfer_reference: transfer.id,
        account_reference: 'acct_1ContractSub',
        amount: money(transfer.amount, transfer.currency.toUpperCase()),
        fully_reversed: false,
      }),
    });
  });
});
