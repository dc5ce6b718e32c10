import { business, inMemoryMarketplace, S, type InMemoryMarketplace } from '../in-memory-marketplace.test-util';

describe('SubMerchantLookups', () => {
  let w: InMemoryMarketplace;

  beforeEach(async () => {
    w = await inMemoryMarketplace();
  });

  it('resolveSplit: merchant rate → default → 0, suspended inactive, foreign/unknown not found', async () => {
    await w.relationships.setup(w.operator.id, S, { marketplace_name: 'Shop' });
    const a = (await w.relationships.link(w.operator.id, S, business('a@x.co'))).relationship.merchant_id;
    expect(await w.lookups.resolveSplit(w.operator.id, a, S)).toMatchObject({
      active: true,
      commission_rate: '0.0000',
      commission_source: 'none',
    });
    await w.relationships.setup(w.operator.id, S, { marketplace_name: 'Shop', default_commission_rate: 7.5 });
    expect(await w.lookups.resolveSplit(w.operator.id, a, S)).toMatchObject({
      commission_rate: '0.0750',
      commission_source: 'marketplace_default',
    });
    await w.relationships.updateCommission(w.operator.id, S, a, 3);
    expect(await w.lookups.resolveSplit(w.operator.id, a, S)).toMatchObject({
      commission_rate: '0.0300',
      commission_source: 'merchant',
    });
    const back = await w.relationships.updateCommission(w.operator.id, S, a, undefined);
    expect(back).toMatchObject({ commission_rate: '0.0750', commission_source: 'marketplace_default' });
    expect(back.relationship.commission_rate).toBeNull();

    await w.relationships.remove(w.operator.id, S, a);
    expect(await w.lookups.resolveSplit(w.operator.id, a, S)).toMatchObject({ active: false, status: 'suspended' });
    expect((await w.membershipOf(a))?.marketplace_id).toBeNull();
    await expect(w.relationships.remove(w.operator.id, S, a)).rejects.toMatchObject({ code: 'RELATIONSHIP_NOT_FOUND' });
    const re = await w.relationships.reactivate(w.operator.id, S, a);
    expect(re.relationship.status).toBe('active');
    expect((await w.membershipOf(a))?.marketplace_id).toBe(w.operator.id);

    const op2 = await w.merchants.create({ ...business('op2@x.co'), is_marketplace_operator: true });
    await expect(w.lookups.resolveSplit(op2.id, a, S)).rejects.toMatchObject({ code: 'RELATIONSHIP_NOT_FOUND' });
    await expect(w.relationships.updateCommission(op2.id, S, a, 1)).rejects.toMatchObject({
      code: 'RELATIONSHIP_NOT_FOUND',
    });
    await expect(w.lookups.resolveSplit(w.operator.id, 424242, S)).rejects.toMatchObject({
      code: 'RELATIONSHIP_NOT_FOUND',
    });
    const plain = await w.merchants.create(business('plain@x.co'));
    await expect(w.lookups.resolveSplit(plain.id, a, S)).rejects.toMatchObject({
      code: 'MARKETPLACE_OPERATOR_REQUIRED',
    });
  });

  it('describeSubMerchant: relationship status and business facts in the caller mode; foreign/unknown not found; no business → null', async () => {
    await w.relationships.setup(w.operator.id, S, { marketplace_name: 'Shop' });
    const a = (await w.relationships.link(w.operator.id, S, { ...business('a@x.co'), business_name: 'Ada Foods' }))
      .relationship.merchant_id;
    expect(await w.lookups.describeSubMerchant(w.operator.id, a, S)).toMatchObject({
      active: true,
      status: 'active',
      marketplace_id: w.operator.id,
      merchant: { id: a, country: 'NG', baseline_currency: 'NGN', business_name: 'Ada Foods' },
    });
    // A sandbox relationship does not exist for live callers.
    await expect(w.lookups.describeSubMerchant(w.operator.id, a, 'live')).rejects.toMatchObject({
      code: 'RELATIONSHIP_NOT_FOUND',
    });
    await w.relationships.remove(w.operator.id, S, a);
    expect(await w.lookups.describeSubMerchant(w.operator.id, a, S)).toMatchObject({
      active: false,
      status: 'suspended',
    });
    const op2 = await w.merchants.create({ ...business('op2@x.co'), is_marketplace_operator: true });
    await expect(w.lookups.describeSubMerchant(op2.id, a, S)).rejects.toMatchObject({ code: 'RELATIONSHIP_NOT_FOUND' });
    await expect(w.lookups.describeSubMerchant(w.operator.id, 424242, S)).rejects.toMatchObject({
      code: 'RELATIONSHIP_NOT_FOUND',
    });
    const plain = await w.merchants.create(business('plain@x.co'));
    await expect(w.lookups.describeSubMerchant(plain.id, a, S)).rejects.toMatchObject({
      code: 'MARKETPLACE_OPERATOR_REQUIRED',
    });
    w.merchantRepo.docs.delete(a);
    expect((await w.lookups.describeSubMerchant(w.operator.id, a, S)).merchant).toBeNull();
  });
});
