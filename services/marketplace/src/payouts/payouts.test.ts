import type { Mode } from '@ppay/kernel';
import { MerchantService } from '../merchants/merchants';
import type { MerchantRepository } from '../merchants/ports';
import type { RelationshipRepository } from '../ports';
import type { RelationshipRecord } from '../relationships/relationship';
import { MarketplacePayouts } from './payouts';
import type { PayoutAccountFacts, PayoutAccounts, WalletPayouts } from './ports';

const OPERATOR = 1000;
const OTHER_OPERATOR = 1001;
const PLAIN = 1002;
const SUB = 2000;
const DESTINATION = {
  kind: 'bank_account' as const,
  bank_name: 'Access Bank',
  institution_id: 'inst_access',
  account_number_masked: '******3456',
  account_name: 'ADEBAYO JOHN',
  gateway_account_id: null,
  fingerprint: 'pdf_1',
};

function setup(status: RelationshipRecord['status'] = 'active', account: Partial<PayoutAccountFacts> = {}) {
  const relationships = new Map<string, Partial<RelationshipRecord>>([
    [`${SUB}:sandbox`, { marketplace_id: OPERATOR, merchant_id: SUB, mode: 'sandbox', status }],
    [`3000:sandbox`, { marketplace_id: OTHER_OPERATOR, merchant_id: 3000, mode: 'sandbox', status: 'active' }],
  ]);
  const merchants = new MerchantService({
    findById: async (id: number) => (id > 9000 ? null : { id, is_marketplace_operator: id !== PLAIN }),
  } as unknown as MerchantRepository);
  const repo = {
    findByMerchant: async (id: number, mode: Mode) => relationships.get(`${id}:${mode}`) ?? null,
  } as unknown as RelationshipRepository;
  const calls: unknown[][] = [];
  const money: WalletPayouts = {
    balances: async () => [],
    createPayout: async (input) => (calls.push(['create', input]), { payout_request_id: 1 }),
    approvePayout: async (...args) => (calls.push(['approve', ...args]), { payout_request_id: 1 }),
    rejectPayout: async (...args) => (calls.push(['reject', ...args]), { payout_request_id: 1 }),
  };
  const accounts: PayoutAccounts = {
    account: async () => ({
      kyc_status: 'approved',
      payout_eligible: true,
      currency: 'NGN',
      payment_gateway: 'naira_gateway',
      payout_method: 'bank_transfer',
      destination: DESTINATION,
      ...account,
    }),
  };
  return { payouts: new MarketplacePayouts(merchants, repo, money, accounts), calls };
}

const ngn = (amount: number) => ({ amount, currency: 'NGN' });

describe('MarketplacePayouts: who may act on a sub-merchant’s money', () => {
  it('balance: an active sub-merchant of this operator; 403 for a non-operator; 404 otherwise (7.5)', async () => {
    const { payouts } = setup();
    expect(await payouts.balance(OPERATOR, 'sandbox', SUB)).toEqual({ merchant_id: SUB, balances: [] });
    await expect(payouts.balance(PLAIN, 'sandbox', SUB)).rejects.toMatchObject({
      code: 'MARKETPLACE_OPERATOR_REQUIRED',
    });
    for (const [op, mode, id] of [
      [OTHER_OPERATOR, 'sandbox', SUB],
      [OPERATOR, 'live', SUB],
      [OPERATOR, 'sandbox', 9999],
    ] as const) {
      await expect(payouts.balance(op, mode, id)).rejects.toMatchObject({ code: 'RELATIONSHIP_NOT_FOUND' });
    }
    await expect(setup('suspended').payouts.balance(OPERATOR, 'sandbox', SUB)).rejects.toMatchObject({
      code: 'RELATIONSHIP_NOT_FOUND',
    });
  });

  it('initiation takes gateway and method from the payout account and the marketplace from the relationship', async () => {
    const { payouts, calls } = setup();
    await payouts.initiate(SUB, 'sandbox', { amount: ngn(500), reference: 'po-1' });
    expect(calls[0]).toEqual([
      'create',
      {
        merchant_id: SUB,
        mode: 'sandbox',
        amount: ngn(500),
        reference: 'po-1',
        marketplace_id: OPERATOR,
        payment_gateway: 'naira_gateway',
        payout_method: 'bank_transfer',
        // Where it pays, as kyc answered it now: payments keeps it with the request (Hardening 2 item 5).
        destination: DESTINATION,
      },
    ]);
  });

  it('initiation refuses without an active relationship, approved KYC, an eligible account in the currency', async () => {
    await expect(
      setup('suspended').payouts.initiate(SUB, 'sandbox', { amount: ngn(1), reference: 'x' }),
    ).rejects.toMatchObject({
      code: 'RELATIONSHIP_NOT_FOUND',
    });
    await expect(
      setup('active', { kyc_status: 'pending_review' }).payouts.initiate(SUB, 'sandbox', {
        amount: ngn(1),
        reference: 'x',
      }),
    ).rejects.toMatchObject({ code: 'KYC_NOT_APPROVED' });
    await expect(
      setup('active', { payout_eligible: false }).payouts.initiate(SUB, 'sandbox', { amount: ngn(1), reference: 'x' }),
    ).rejects.toMatchObject({ code: 'PAYOUT_NOT_SET_UP' });
    await expect(
      setup().payouts.initiate(SUB, 'sandbox', { amount: { amount: 1, currency: 'USD' }, reference: 'x' }),
    ).rejects.toMatchObject({ code: 'PAYOUT_CURRENCY_MISMATCH', param: 'currency' });
    await expect(
      setup().payouts.initiate(SUB, 'sandbox', { amount: ngn(1), reference: 'x', payout_method: 'mobile_money' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', param: 'payout_method' });
  });

  it('approve / reject: 404 without a relationship in that environment, 403 for another marketplace (7.8)', async () => {
    const { payouts, calls } = setup();
    await payouts.approve(OPERATOR, 'sandbox', SUB, 'po-1');
    expect(calls[0]).toEqual(['approve', SUB, 'sandbox', 'po-1', OPERATOR]);
    await expect(payouts.approve(OTHER_OPERATOR, 'sandbox', SUB, 'po-1')).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    await expect(payouts.approve(OPERATOR, 'live', SUB, 'po-1')).rejects.toMatchObject({
      code: 'PAYOUT_REQUEST_NOT_FOUND',
    });
    await expect(setup('suspended').payouts.approve(OPERATOR, 'sandbox', SUB, 'po-1')).rejects.toMatchObject({
      code: 'PAYOUT_REQUEST_NOT_FOUND',
    });
    await expect(payouts.reject(OPERATOR, 'sandbox', SUB, 'po-1', '  ab ')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      param: 'reason',
    });
    await payouts.reject(OPERATOR, 'sandbox', SUB, 'po-1', '  Wrong account ');
    expect(calls[1]).toEqual(['reject', SUB, 'sandbox', 'po-1', OPERATOR, 'Wrong account']);
  });
});
