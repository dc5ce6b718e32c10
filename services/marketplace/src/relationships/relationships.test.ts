import { business, inMemoryMarketplace, L, S, type InMemoryMarketplace } from '../in-memory-marketplace.test-util';

describe('RelationshipService', () => {
  let w: InMemoryMarketplace;

  beforeEach(async () => {
    w = await inMemoryMarketplace();
  });

  it('setup: operators only; repeated setup updates the name and keeps the default unless given', async () => {
    const plain = await w.merchants.create(business('plain@x.co'));
    await expect(w.relationships.setup(plain.id, S, { marketplace_name: 'X' })).rejects.toMatchObject({
      code: 'MARKETPLACE_OPERATOR_REQUIRED',
    });
    const first = await w.relationships.setup(w.operator.id, S, {
      marketplace_name: 'Shop',
      default_commission_rate: 8,
    });
    expect(first.settings).toMatchObject({ name: 'Shop', default_commission_rate: '0.0800', status: 'active' });
    const again = await w.relationships.setup(w.operator.id, S, { marketplace_name: 'Shop 2' });
    expect(again.settings).toMatchObject({ name: 'Shop 2', default_commission_rate: '0.0800' });
    expect(again.settings.created_at).toEqual(first.settings.created_at);
    expect(w.merchantRepo.events.at(-1)).toMatchObject({
      subject: 'merchants.marketplace_updated',
      mode: S,
      data: { mode: S, name: 'Shop 2' },
    });
  });

  it('link requires a marketplace set up in the mode of the key', async () => {
    await expect(w.relationships.link(w.operator.id, S, business('s@x.co'))).rejects.toMatchObject({
      code: 'MARKETPLACE_NOT_SET_UP',
    });
    await w.relationships.setup(w.operator.id, S, { marketplace_name: 'Shop' });
    await expect(w.relationships.link(w.operator.id, L, business('s@x.co'))).rejects.toMatchObject({
      code: 'MARKETPLACE_NOT_SET_UP',
    });
  });

  it('settles operator and relationship before the commission body (Hardening 2 item 12)', async () => {
    const plain = await w.merchants.create(business('plain@x.co'));
    await expect(w.relationships.updateCommission(plain.id, S, 424242, 500)).rejects.toMatchObject({
      code: 'MARKETPLACE_OPERATOR_REQUIRED',
    });
    await expect(w.relationships.updateCommission(w.operator.id, S, 424242, 500)).rejects.toMatchObject({
      code: 'RELATIONSHIP_NOT_FOUND',
    });
    await w.relationships.setup(w.operator.id, S, { marketplace_name: 'Shop' });
    const sub = (await w.relationships.link(w.operator.id, S, business('s@x.co'))).relationship.merchant_id;
    await expect(w.relationships.updateCommission(w.operator.id, S, sub, 500)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it('creates an active sub-merchant, caches membership on it and emits relationship_changed with the mode', async () => {
    await w.relationships.setup(w.operator.id, S, { marketplace_name: 'Shop', default_commission_rate: 8 });
    const view = await w.relationships.link(w.operator.id, S, { ...business('Sub@X.co'), commission_rate: 5 });
    expect(view).toMatchObject({
      merchant_email: 'sub@x.co',
      commission_rate: '0.0500',
      commission_source: 'merchant',
      relationship: { status: 'active', invite_token: null, marketplace_id: w.operator.id, mode: S, version: 1 },
    });
    const sub = await w.merchants.fresh(view.relationship.merchant_id);
    expect(sub.membership).toEqual({
      sandbox: expect.objectContaining({ marketplace_id: w.operator.id, marketplace_commission_rate: '0.0500' }),
    });
    expect(sub.is_marketplace_operator).toBe(false);
    expect(w.relRepo.events[0]).toMatchObject({
      subject: 'merchants.relationship_changed',
      mode: S,
      data: { mode: S, status: 'active', commission_rate: '0.0500', change: 'created', version: 1 },
    });
  });

  it('a retried create after a crash before the relationship write finishes the job', async () => {
    await w.relationships.setup(w.operator.id, S, { marketplace_name: 'Shop' });
    const orphan = await w.merchants.create({ ...business('orphan@x.co'), created_by_marketplace_id: w.operator.id });
    const view = await w.relationships.link(w.operator.id, S, business('orphan@x.co'));
    expect(view.relationship.merchant_id).toBe(orphan.id);
    // A plain repeat once it joined answers the same relationship again.
    const again = await w.relationships.create(w.operator.id, S, business('orphan@x.co'));
    expect(again).toMatchObject({ kind: 'created', view: { relationship: { id: view.relationship.id } } });
    // Somebody else's e-mail is the invitation path (Hardening 2 item 11), never ALREADY_EXISTS param=email.
    const taken = await w.merchants.create(business('taken@x.co'));
    expect(await w.relationships.create(w.operator.id, S, business('taken@x.co'))).toEqual({
      kind: 'registered',
      merchantId: taken.id,
    });
    // LinkMerchant (previous gateways only) answers a bare 409 naming no field.
    const legacy = await w.relationships.link(w.operator.id, S, business('taken@x.co')).catch((e: unknown) => e);
    expect(legacy).toMatchObject({ code: 'ALREADY_EXISTS', param: undefined, detail: undefined });
  });

  describe('modes: sandbox and live are separate marketplaces', () => {
    let sub: number;
    beforeEach(async () => {
      await w.relationships.setup(w.operator.id, S, { marketplace_name: 'Shop', default_commission_rate: 8 });
      await w.relationships.setup(w.operator.id, L, { marketplace_name: 'Shop', default_commission_rate: 2 });
      sub = (await w.relationships.link(w.operator.id, L, business('both@x.co'))).relationship.merchant_id;
    });

    it('live is invisible to sandbox: no split, no list, no commission/suspend/reactivate', async () => {
      expect(await w.lookups.resolveSplit(w.operator.id, sub, L)).toMatchObject({
        active: true,
        commission_rate: '0.0200',
      });
      await expect(w.lookups.resolveSplit(w.operator.id, sub, S)).rejects.toMatchObject({
        code: 'RELATIONSHIP_NOT_FOUND',
      });
      expect((await w.relationships.list(w.operator.id, S, 'active', 1, 20)).total).toBe(0);
      for (const attempt of [
        () => w.relationships.updateCommission(w.operator.id, S, sub, 50),
        () => w.relationships.remove(w.operator.id, S, sub),
        () => w.relationships.reactivate(w.operator.id, S, sub),
      ]) {
        await expect(attempt()).rejects.toMatchObject({ code: 'RELATIONSHIP_NOT_FOUND' });
      }
      expect(await w.lookups.resolveSplit(w.operator.id, sub, L)).toMatchObject({
        active: true,
        commission_rate: '0.0200',
      });
      // A sandbox default never changes the live one.
      await w.relationships.setup(w.operator.id, S, { marketplace_name: 'Shop', default_commission_rate: 90 });
      expect((await w.lookups.resolveSplit(w.operator.id, sub, L)).commission_rate).toBe('0.0200');
    });

    it('a sandbox relationship of the same business never affects live splits, and the reverse', async () => {
      // The operator created the business: it joins sandbox with the same fields and its sandbox key.
      const again = await w.relationships.link(w.operator.id, S, business('both@x.co'));
      expect(again.relationship).toMatchObject({ merchant_id: sub, mode: S });
      await w.relationships.updateCommission(w.operator.id, S, sub, 40);
      await w.relationships.remove(w.operator.id, S, sub);
      expect(await w.lookups.resolveSplit(w.operator.id, sub, S)).toMatchObject({ active: false, status: 'suspended' });
      expect(await w.lookups.resolveSplit(w.operator.id, sub, L)).toMatchObject({
        active: true,
        commission_rate: '0.0200',
        commission_source: 'marketplace_default',
      });
      expect(await w.membershipOf(sub, L)).toMatchObject({ marketplace_id: w.operator.id });
      expect(await w.membershipOf(sub, S)).toMatchObject({ marketplace_id: null });
      await w.relationships.remove(w.operator.id, L, sub);
      await w.relationships.reactivate(w.operator.id, S, sub);
      expect((await w.lookups.resolveSplit(w.operator.id, sub, S)).active).toBe(true);
      expect((await w.lookups.resolveSplit(w.operator.id, sub, L)).active).toBe(false);
    });
  });

  it('a write based on a stale version is refused (optimistic concurrency)', async () => {
    await w.relationships.setup(w.operator.id, S, { marketplace_name: 'Shop' });
    const a = (await w.relationships.link(w.operator.id, S, business('a@x.co'))).relationship.merchant_id;
    const stale = (await w.relRepo.findByMerchant(a, S))!;
    await w.relationships.updateCommission(w.operator.id, S, a, 4);
    const lost = await w.relRepo.update(stale, ['active'], { commission_rate: '0.0100' }, w.relRepo.events[0]!);
    expect(lost).toBeNull();
    expect((await w.relRepo.findByMerchant(a, S))!.commission_rate).toBe('0.0400');
  });

  it('the membership cache never goes backwards and is repaired by syncMerchant', async () => {
    await w.relationships.setup(w.operator.id, S, { marketplace_name: 'Shop' });
    const a = (await w.relationships.link(w.operator.id, S, business('a@x.co'))).relationship.merchant_id;
    await w.relationships.remove(w.operator.id, S, a);
    // A stale (older version) sync is ignored.
    expect(
      await w.merchants.syncMembership(a, S, {
        marketplace_id: w.operator.id,
        marketplace_commission_rate: null,
        relationship_id: 1,
        version: 1,
      }),
    ).toBe(false);
    expect((await w.membershipOf(a))?.marketplace_id).toBeNull();
    // Simulate a crash after the relationship write: the cache missed a change; the consumer repairs it.
    const rel = (await w.relRepo.findByMerchant(a, S))!;
    w.relRepo.docs.get(rel.id)!.status = 'active';
    w.relRepo.docs.get(rel.id)!.version += 1;
    await w.membership.syncMerchant(a, L);
    expect((await w.membershipOf(a))?.marketplace_id).toBeNull();
    await w.membership.syncMerchant(a, S);
    expect((await w.membershipOf(a))?.marketplace_id).toBe(w.operator.id);
  });

  it('lists the operator’s relationships by status with e-mails', async () => {
    await w.relationships.setup(w.operator.id, S, { marketplace_name: 'Shop' });
    for (const e of ['a', 'b', 'c']) await w.relationships.link(w.operator.id, S, business(`${e}@x.co`));
    const page = await w.relationships.list(w.operator.id, S, 'active', 2, 2);
    expect(page.total).toBe(3);
    expect(page.items.map((i) => i.merchant_email)).toEqual(['c@x.co']);
    expect((await w.relationships.list(w.operator.id, S, 'suspended', 1, 20)).total).toBe(0);
  });
});
