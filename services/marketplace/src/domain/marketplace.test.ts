import { PlatformError, type KycCaseFacts, type Mode, type OutboxEntry } from '@ppay/kernel';
import { percentToRate, resolveCommission } from './commission';
import { MarketplaceService, relationshipResource } from './marketplace';
import {
  MerchantService,
  type AccountSettingsPatch,
  type MarketplaceMembership,
  type MarketplaceSettings,
  type MerchantRecord,
  type MerchantRepository,
  type PayoutEligibility,
} from './merchants';
import type {
  RelationshipChanges,
  RelationshipRecord,
  RelationshipRepository,
  RelationshipStatus,
} from './relationships';

class MemoryMerchants implements MerchantRepository {
  seq = 1000;
  docs = new Map<number, MerchantRecord & { sync?: [number, number] }>();
  events: OutboxEntry[] = [];
  async nextId() {
    return this.seq++;
  }
  async insert(record: MerchantRecord, event: OutboxEntry) {
    if ([...this.docs.values()].some((m) => m.email === record.email)) {
      throw new PlatformError('ALREADY_EXISTS', 'A merchant with this email already exists');
    }
    this.docs.set(record.id, { ...record });
    this.events.push(event);
  }
  async findById(id: number) {
    const m = this.docs.get(id);
    return m ? { ...m } : null;
  }
  async findByEmail(email: string) {
    return [...this.docs.values()].find((m) => m.email === email) ?? null;
  }
  async findByIds(ids: number[]) {
    return ids.map((id) => this.docs.get(id)).filter((m): m is MerchantRecord => !!m);
  }
  async setMarketplace(id: number, settings: MarketplaceSettings, event: OutboxEntry) {
    const m = this.docs.get(id);
    if (!m?.is_marketplace_operator) return null;
    m.marketplace = settings;
    this.events.push(event);
    return { ...m };
  }
  async updateSettings(
    id: number,
    expectedVersion: number,
    settings: AccountSettingsPatch & { updated_at: Date },
    event: OutboxEntry,
  ) {
    const m = this.docs.get(id);
    if (!m || m.settings_version !== expectedVersion) return null;
    if (settings.customer_pays_fees !== undefined) m.customer_pays_fees = settings.customer_pays_fees;
    m.settings_version = expectedVersion + 1;
    m.settings_updated_at = settings.updated_at;
    this.events.push(event);
    return { ...m };
  }
  async syncMembership(id: number, ms: MarketplaceMembership) {
    const m = this.docs.get(id);
    if (!m) return false;
    const [rel, version] = m.sync ?? [0, 0];
    if (rel > ms.relationship_id || (rel === ms.relationship_id && version >= ms.version)) return false;
    m.marketplace_id = ms.marketplace_id;
    m.marketplace_commission_rate = ms.marketplace_commission_rate;
    m.sync = [ms.relationship_id, ms.version];
    return true;
  }
  async recordPayoutEligibility(id: number, mode: Mode, eligibility: PayoutEligibility) {
    const m = this.docs.get(id);
    const current = m?.payout_eligibility?.[mode];
    if (!m || (current && current.version >= eligibility.version)) return false;
    m.payout_eligibility = { ...m.payout_eligibility, [mode]: eligibility };
    return true;
  }
}

class MemoryRelationships implements RelationshipRepository {
  seq = 1;
  docs = new Map<number, RelationshipRecord>();
  events: OutboxEntry[] = [];
  async nextId() {
    return this.seq++;
  }
  async insert(record: RelationshipRecord, event: OutboxEntry) {
    if ([...this.docs.values()].some((r) => r.merchant_id === record.merchant_id)) {
      throw new PlatformError('MERCHANT_ALREADY_LINKED');
    }
    this.docs.set(record.id, { ...record });
    this.events.push(event);
  }
  async findByMerchant(merchantId: number) {
    const r = [...this.docs.values()].find((d) => d.merchant_id === merchantId);
    return r ? { ...r } : null;
  }
  async findByInviteToken(token: string) {
    const r = [...this.docs.values()].find((d) => d.invite_token === token);
    return r ? { ...r } : null;
  }
  async list(marketplaceId: number, status: RelationshipStatus, page: number, limit: number) {
    const all = [...this.docs.values()].filter((r) => r.marketplace_id === marketplaceId && r.status === status);
    return { items: all.slice((page - 1) * limit, page * limit), total: all.length };
  }
  async update(
    expected: RelationshipRecord,
    from: RelationshipStatus[],
    changes: RelationshipChanges,
    event: OutboxEntry,
  ) {
    const r = this.docs.get(expected.id);
    if (!r || r.version !== expected.version || !from.includes(r.status)) return null;
    Object.assign(r, changes, { version: r.version + 1 });
    this.events.push(event);
    return { ...r };
  }
}

describe('percentToRate', () => {
  it.each([
    [8, '0.0800'],
    [0, '0.0000'],
    [100, '1.0000'],
    [12.5, '0.1250'],
    [0.01, '0.0001'],
    [33.33, '0.3333'],
  ])('%p%% → %s exactly', (percent, rate) => {
    expect(percentToRate(percent, 'x')).toBe(rate);
  });

  it.each([-1, 100.01, 8.125, Number.NaN, Number.POSITIVE_INFINITY])('rejects %p', (percent) => {
    expect(() => percentToRate(percent, 'commission_rate')).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', param: 'commission_rate' }),
    );
  });

  it('resolves merchant rate → marketplace default → 0', () => {
    expect(resolveCommission('0.0500', '0.0800')).toEqual({ rate: '0.0500', source: 'merchant' });
    expect(resolveCommission(null, '0.0800')).toEqual({ rate: '0.0800', source: 'marketplace_default' });
    expect(resolveCommission(null, null)).toEqual({ rate: '0.0000', source: 'none' });
  });
});

describe('MarketplaceService', () => {
  let merchantRepo: MemoryMerchants;
  let relRepo: MemoryRelationships;
  let merchants: MerchantService;
  let svc: MarketplaceService;
  let operator: MerchantRecord;

  const business = (email: string) => ({ email, country: 'NG', baseline_currency: 'NGN' });

  beforeEach(async () => {
    merchantRepo = new MemoryMerchants();
    relRepo = new MemoryRelationships();
    merchants = new MerchantService(merchantRepo);
    svc = new MarketplaceService(merchants, relRepo);
    operator = await merchants.create({ ...business('op@x.co'), is_marketplace_operator: true });
  });

  it('setup: operators only; repeated setup updates the name and keeps the default unless given', async () => {
    const plain = await merchants.create(business('plain@x.co'));
    await expect(svc.setup(plain.id, { marketplace_name: 'X' })).rejects.toMatchObject({
      code: 'MARKETPLACE_OPERATOR_REQUIRED',
    });
    const first = await svc.setup(operator.id, { marketplace_name: 'Shop', default_commission_rate: 8 });
    expect(first.settings).toMatchObject({ name: 'Shop', default_commission_rate: '0.0800', status: 'active' });
    const again = await svc.setup(operator.id, { marketplace_name: 'Shop 2' });
    expect(again.settings).toMatchObject({ name: 'Shop 2', default_commission_rate: '0.0800' });
    expect(again.settings.created_at).toEqual(first.settings.created_at);
    expect(merchantRepo.events.map((e) => e.subject)).toContain('merchants.marketplace_updated');
  });

  it('link requires a set-up marketplace', async () => {
    await expect(svc.link(operator.id, business('s@x.co'))).rejects.toMatchObject({ code: 'MARKETPLACE_NOT_SET_UP' });
  });

  it('creates an active sub-merchant, caches membership on it and emits relationship_changed', async () => {
    await svc.setup(operator.id, { marketplace_name: 'Shop', default_commission_rate: 8 });
    const view = await svc.link(operator.id, { ...business('Sub@X.co'), commission_rate: 5 });
    expect(view).toMatchObject({
      merchant_email: 'sub@x.co',
      commission_rate: '0.0500',
      commission_source: 'merchant',
      relationship: { status: 'active', invite_token: null, marketplace_id: operator.id, version: 1 },
    });
    const sub = await merchants.fresh(view.relationship.merchant_id);
    expect(sub).toMatchObject({ marketplace_id: operator.id, marketplace_commission_rate: '0.0500' });
    expect(sub.is_marketplace_operator).toBe(false);
    expect(relRepo.events[0]).toMatchObject({
      subject: 'merchants.relationship_changed',
      data: { status: 'active', commission_rate: '0.0500', change: 'created', version: 1 },
    });
  });

  it('a retried create after a crash before the relationship write finishes the job', async () => {
    await svc.setup(operator.id, { marketplace_name: 'Shop' });
    const orphan = await merchants.create({ ...business('orphan@x.co'), created_by_marketplace_id: operator.id });
    const view = await svc.link(operator.id, business('orphan@x.co'));
    expect(view.relationship.merchant_id).toBe(orphan.id);
    // Somebody else's e-mail is still a conflict.
    await merchants.create(business('taken@x.co'));
    await expect(svc.link(operator.id, business('taken@x.co'))).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
  });

  it('invites an existing business: pending until it accepts with its own key', async () => {
    await svc.setup(operator.id, { marketplace_name: 'Shop' });
    const existing = await merchants.create(business('e@x.co'));
    const invited = await svc.link(operator.id, { merchant_id: existing.id });
    expect(invited.relationship).toMatchObject({ status: 'pending', joined_at: null });
    expect(invited.relationship.invite_token).toMatch(/^inv_/);
    expect((await svc.resolveSplit(operator.id, existing.id)).active).toBe(false);
    expect((await merchants.fresh(existing.id)).marketplace_id).toBeNull();

    const token = invited.relationship.invite_token!;
    const other = await merchants.create(business('other@x.co'));
    await expect(svc.acceptInvitation(other.id, token)).rejects.toMatchObject({ code: 'INVITATION_NOT_FOUND' });
    const accepted = await svc.acceptInvitation(existing.id, token);
    expect(accepted.relationship).toMatchObject({ status: 'active', invite_token: null, version: 2 });
    expect(accepted.relationship.joined_at).toBeInstanceOf(Date);
    expect((await merchants.fresh(existing.id)).marketplace_id).toBe(operator.id);
    await expect(svc.acceptInvitation(existing.id, token)).rejects.toMatchObject({ code: 'INVITATION_NOT_FOUND' });
  });

  it('refuses linking twice, another marketplace’s merchant, operators and itself', async () => {
    await svc.setup(operator.id, { marketplace_name: 'Shop' });
    const op2 = await merchants.create({ ...business('op2@x.co'), is_marketplace_operator: true });
    await svc.setup(op2.id, { marketplace_name: 'Other' });
    const sub = await svc.link(operator.id, business('s@x.co'));
    const id = sub.relationship.merchant_id;
    await expect(svc.link(operator.id, { merchant_id: id })).rejects.toMatchObject({ code: 'MERCHANT_ALREADY_LINKED' });
    await expect(svc.link(op2.id, { merchant_id: id })).rejects.toMatchObject({ code: 'MERCHANT_ALREADY_LINKED' });
    await expect(svc.link(operator.id, { merchant_id: op2.id })).rejects.toMatchObject({ param: 'merchant_id' });
    await expect(svc.link(operator.id, { merchant_id: operator.id })).rejects.toMatchObject({ param: 'merchant_id' });
    await expect(svc.link(operator.id, { merchant_id: 999_999 })).rejects.toMatchObject({ code: 'MERCHANT_NOT_FOUND' });
    await expect(svc.link(operator.id, { merchant_id: id, email: 'a@b.co' })).rejects.toMatchObject({
      param: 'email',
    });
    await expect(svc.link(operator.id, { country: 'NG' })).rejects.toMatchObject({ param: 'email' });
  });

  it('resolveSplit: merchant rate → default → 0, suspended inactive, foreign/unknown not found', async () => {
    await svc.setup(operator.id, { marketplace_name: 'Shop' });
    const a = (await svc.link(operator.id, business('a@x.co'))).relationship.merchant_id;
    expect(await svc.resolveSplit(operator.id, a)).toMatchObject({
      active: true,
      commission_rate: '0.0000',
      commission_source: 'none',
    });
    await svc.setup(operator.id, { marketplace_name: 'Shop', default_commission_rate: 7.5 });
    expect(await svc.resolveSplit(operator.id, a)).toMatchObject({
      commission_rate: '0.0750',
      commission_source: 'marketplace_default',
    });
    await svc.updateCommission(operator.id, a, 3);
    expect(await svc.resolveSplit(operator.id, a)).toMatchObject({
      commission_rate: '0.0300',
      commission_source: 'merchant',
    });
    const back = await svc.updateCommission(operator.id, a, undefined);
    expect(back).toMatchObject({ commission_rate: '0.0750', commission_source: 'marketplace_default' });
    expect(back.relationship.commission_rate).toBeNull();

    await svc.remove(operator.id, a);
    expect(await svc.resolveSplit(operator.id, a)).toMatchObject({ active: false, status: 'suspended' });
    expect((await merchants.fresh(a)).marketplace_id).toBeNull();
    await expect(svc.remove(operator.id, a)).rejects.toMatchObject({ code: 'RELATIONSHIP_NOT_FOUND' });
    const re = await svc.reactivate(operator.id, a);
    expect(re.relationship.status).toBe('active');
    expect((await merchants.fresh(a)).marketplace_id).toBe(operator.id);

    const op2 = await merchants.create({ ...business('op2@x.co'), is_marketplace_operator: true });
    await expect(svc.resolveSplit(op2.id, a)).rejects.toMatchObject({ code: 'RELATIONSHIP_NOT_FOUND' });
    await expect(svc.updateCommission(op2.id, a, 1)).rejects.toMatchObject({ code: 'RELATIONSHIP_NOT_FOUND' });
    await expect(svc.resolveSplit(operator.id, 424242)).rejects.toMatchObject({ code: 'RELATIONSHIP_NOT_FOUND' });
    const plain = await merchants.create(business('plain@x.co'));
    await expect(svc.resolveSplit(plain.id, a)).rejects.toMatchObject({ code: 'MARKETPLACE_OPERATOR_REQUIRED' });
  });

  it('describeSubMerchant: relationship status and business facts; foreign/unknown not found; no business → null', async () => {
    await svc.setup(operator.id, { marketplace_name: 'Shop' });
    const a = (await svc.link(operator.id, { ...business('a@x.co'), business_name: 'Ada Foods' })).relationship
      .merchant_id;
    expect(await svc.describeSubMerchant(operator.id, a)).toMatchObject({
      active: true,
      status: 'active',
      marketplace_id: operator.id,
      merchant: { id: a, country: 'NG', baseline_currency: 'NGN', business_name: 'Ada Foods' },
    });
    await svc.remove(operator.id, a);
    expect(await svc.describeSubMerchant(operator.id, a)).toMatchObject({ active: false, status: 'suspended' });
    const op2 = await merchants.create({ ...business('op2@x.co'), is_marketplace_operator: true });
    await expect(svc.describeSubMerchant(op2.id, a)).rejects.toMatchObject({ code: 'RELATIONSHIP_NOT_FOUND' });
    await expect(svc.describeSubMerchant(operator.id, 424242)).rejects.toMatchObject({
      code: 'RELATIONSHIP_NOT_FOUND',
    });
    const plain = await merchants.create(business('plain@x.co'));
    await expect(svc.describeSubMerchant(plain.id, a)).rejects.toMatchObject({
      code: 'MARKETPLACE_OPERATOR_REQUIRED',
    });
    merchantRepo.docs.delete(a);
    expect((await svc.describeSubMerchant(operator.id, a)).merchant).toBeNull();
  });

  it('records KYC outcomes per mode, newest version wins, and shows them in the caller mode', async () => {
    await svc.setup(operator.id, { marketplace_name: 'Shop' });
    const a = (await svc.link(operator.id, business('a@x.co'))).relationship.merchant_id;
    const facts = (mode: Mode, version: number, status: KycCaseFacts['status'], eligible: boolean): KycCaseFacts => ({
      submission_id: 7,
      merchant_id: a,
      marketplace_id: operator.id,
      mode,
      status,
      provider: 'service',
      settlement_currency: 'NGN',
      payout_eligible: eligible,
      version,
    });
    const at = new Date('2026-11-23T10:00:00Z');
    expect(await svc.recordKycOutcome(facts('live', 3, 'approved', true), at)).toBe(true);
    expect(await svc.recordKycOutcome(facts('live', 2, 'pending_review', false), at)).toBe(false);
    expect(await svc.recordKycOutcome(facts('live', 3, 'approved', true), at)).toBe(false);
    expect(await svc.recordKycOutcome(facts('sandbox', 1, 'pending_review', false), at)).toBe(true);
    const [view] = (await svc.list(operator.id, 'active', 1, 20)).items;
    expect(relationshipResource(view!, 'live')).toMatchObject({ kyc_status: 'approved', payouts_enabled: true });
    expect(relationshipResource(view!, 'sandbox')).toMatchObject({
      kyc_status: 'pending_review',
      payouts_enabled: false,
    });
    const other = await svc.link(operator.id, business('b@x.co'));
    expect(relationshipResource(other, 'live')).toMatchObject({ kyc_status: 'not_started', payouts_enabled: false });
  });

  it('a write based on a stale version is refused (optimistic concurrency)', async () => {
    await svc.setup(operator.id, { marketplace_name: 'Shop' });
    const a = (await svc.link(operator.id, business('a@x.co'))).relationship.merchant_id;
    const stale = (await relRepo.findByMerchant(a))!;
    await svc.updateCommission(operator.id, a, 4);
    const lost = await relRepo.update(stale, ['active'], { commission_rate: '0.0100' }, relRepo.events[0]!);
    expect(lost).toBeNull();
    expect((await relRepo.findByMerchant(a))!.commission_rate).toBe('0.0400');
  });

  it('the membership cache never goes backwards and is repaired by syncMerchant', async () => {
    await svc.setup(operator.id, { marketplace_name: 'Shop' });
    const a = (await svc.link(operator.id, business('a@x.co'))).relationship.merchant_id;
    await svc.remove(operator.id, a);
    // A stale (older version) sync is ignored.
    expect(
      await merchants.syncMembership(a, {
        marketplace_id: operator.id,
        marketplace_commission_rate: null,
        relationship_id: 1,
        version: 1,
      }),
    ).toBe(false);
    expect((await merchants.fresh(a)).marketplace_id).toBeNull();
    // Simulate a crash after the relationship write: the cache missed a change; the consumer repairs it.
    const rel = (await relRepo.findByMerchant(a))!;
    relRepo.docs.get(rel.id)!.status = 'active';
    relRepo.docs.get(rel.id)!.version += 1;
    await svc.syncMerchant(a);
    expect((await merchants.fresh(a)).marketplace_id).toBe(operator.id);
  });

  it('lists the operator’s relationships by status with e-mails', async () => {
    await svc.setup(operator.id, { marketplace_name: 'Shop' });
    for (const e of ['a', 'b', 'c']) await svc.link(operator.id, business(`${e}@x.co`));
    const page = await svc.list(operator.id, 'active', 2, 2);
    expect(page.total).toBe(3);
    expect(page.items.map((i) => i.merchant_email)).toEqual(['c@x.co']);
    expect((await svc.list(operator.id, 'suspended', 1, 20)).total).toBe(0);
  });
});

describe('MerchantService.updateSettings', () => {
  let repo: MemoryMerchants;
  let merchants: MerchantService;
  let id: number;

  beforeEach(async () => {
    repo = new MemoryMerchants();
    merchants = new MerchantService(repo);
    id = (await merchants.create({ email: 'fees@x.co', country: 'NG', baseline_currency: 'NGN' })).id;
  });

  it('starts with the merchant absorbing fees, and the created event says so', async () => {
    expect(await merchants.get(id)).toMatchObject({ customer_pays_fees: false, settings_version: 0 });
    expect(repo.events[0]).toMatchObject({ subject: 'merchants.created' });
    expect(repo.events[0]!.data).toMatchObject({ customer_pays_fees: false });
  });

  it('bumps the version and publishes merchants.settings_updated on a change, and nothing on a no-op', async () => {
    const updated = await merchants.updateSettings(id, { customer_pays_fees: true });
    expect(updated).toMatchObject({ customer_pays_fees: true, settings_version: 1 });
    expect(updated.settings_updated_at).toBeInstanceOf(Date);
    const event = repo.events.at(-1)!;
    expect(event.subject).toBe('merchants.settings_updated');
    expect(event.data).toEqual({ merchant_id: id, customer_pays_fees: true, settings_version: 1 });

    const before = repo.events.length;
    expect(await merchants.updateSettings(id, { customer_pays_fees: true })).toMatchObject({ settings_version: 1 });
    expect(await merchants.updateSettings(id, {})).toMatchObject({ settings_version: 1 });
    expect(repo.events).toHaveLength(before);
    expect((await merchants.updateSettings(id, { customer_pays_fees: false })).settings_version).toBe(2);
  });

  it('retries when another writer changed the settings between read and write', async () => {
    const realUpdate = repo.updateSettings.bind(repo);
    let raced = false;
    repo.updateSettings = async (mid, expected, settings, event) => {
      if (!raced) {
        raced = true;
        // A concurrent request turns the setting on first.
        repo.docs.get(mid)!.settings_version += 1;
        repo.docs.get(mid)!.customer_pays_fees = true;
        return null;
      }
      return realUpdate(mid, expected, settings, event);
    };
    // After the retry the requested value is already there: nothing left to write.
    expect(await merchants.updateSettings(id, { customer_pays_fees: true })).toMatchObject({
      customer_pays_fees: true,
      settings_version: 1,
    });
  });

  it('gives up with CONFLICT when it keeps losing the race', async () => {
    repo.updateSettings = async () => null;
    await expect(merchants.updateSettings(id, { customer_pays_fees: true })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
  });
});
