import type { KycCaseFacts, Mode } from '@ppay/kernel';
import { percentToRate, resolveCommission } from './commission';
import {
  effectiveStatus,
  INVITATION_TTL_MS,
  type InvitationQuery,
  type InvitationRecord,
  type InvitationRepository,
  type InvitationStatus,
} from './invitations';
import { ACCEPTANCE_REPAIR_AFTER_MS, MarketplaceService, relationshipResource } from './marketplace';
import { MerchantService, type MerchantRecord } from './merchants';
import { MemoryMerchants, MemoryRelationships } from './memory-ports.test-util';

class MemoryInvitations implements InvitationRepository {
  docs = new Map<string, InvitationRecord & { open_key: string }>();
  private copy(d?: InvitationRecord & { open_key: string }): InvitationRecord | null {
    if (!d) return null;
    const { open_key: _key, ...rest } = d;
    return { ...rest };
  }
  async insertPending(record: InvitationRecord) {
    const key = `${record.marketplace_id}:${record.merchant_id}:${record.mode}`;
    if ([...this.docs.values()].some((d) => d.open_key === key)) return false;
    this.docs.set(record.id, { ...record, open_key: key });
    return true;
  }
  async findById(id: string) {
    return this.copy(this.docs.get(id));
  }
  async findOpen(marketplaceId: number, merchantId: number, mode: Mode) {
    return this.copy([...this.docs.values()].find((d) => d.open_key === `${marketplaceId}:${merchantId}:${mode}`));
  }
  async closePending(
    id: string,
    to: Exclude<InvitationStatus, 'pending'>,
    at: Date,
    options: { notExpiredAt?: Date; relationshipId?: number } = {},
  ) {
    const d = this.docs.get(id);
    if (!d || d.status !== 'pending') return null;
    if (options.notExpiredAt && d.expires_at <= options.notExpiredAt) return null;
    Object.assign(d, {
      status: to,
      responded_at: at,
      open_key: id,
      relationship_id: options.relationshipId ?? null,
      relationship_written: false,
    });
    return this.copy(d);
  }
  async reopenAcceptance(id: string, relationshipId: number) {
    const d = this.docs.get(id);
    if (!d || d.status !== 'accepted' || d.relationship_id !== relationshipId || d.relationship_written) return false;
    Object.assign(d, { status: 'pending', responded_at: null, relationship_id: null });
    return true;
  }
  async markRelationshipWritten(id: string) {
    const d = this.docs.get(id);
    if (d) d.relationship_written = true;
  }
  async list(query: InvitationQuery, now: Date, page: number, limit: number) {
    const all = [...this.docs.values()].filter(
      (d) =>
        (query.direction === 'sent' ? d.marketplace_id : d.merchant_id) === query.merchant_id &&
        d.mode === query.mode &&
        (!query.status || effectiveStatus(d, now) === query.status),
    );
    return { items: all.slice((page - 1) * limit, page * limit).map((d) => this.copy(d)!), total: all.length };
  }
  async dueForExpiry(now: Date, limit: number) {
    return [...this.docs.values()]
      .filter((d) => d.status === 'pending' && d.expires_at <= now)
      .slice(0, limit)
      .map((d) => this.copy(d)!);
  }
  async unfinishedAcceptances(before: Date, limit: number) {
    return [...this.docs.values()]
      .filter((d) => d.status === 'accepted' && !d.relationship_written && d.responded_at! <= before)
      .slice(0, limit)
      .map((d) => this.copy(d)!);
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
  let invRepo: MemoryInvitations;
  let merchants: MerchantService;
  let svc: MarketplaceService;
  let operator: MerchantRecord;
  let clock: number;

  const S: Mode = 'sandbox';
  const L: Mode = 'live';
  const business = (email: string) => ({ email, country: 'NG', baseline_currency: 'NGN' });
  const membership = async (id: number, mode: Mode = S) => (await merchants.fresh(id)).membership?.[mode];

  beforeEach(async () => {
    clock = Date.parse('2026-11-23T10:00:00Z');
    merchantRepo = new MemoryMerchants();
    relRepo = new MemoryRelationships();
    invRepo = new MemoryInvitations();
    merchants = new MerchantService(merchantRepo);
    svc = new MarketplaceService(merchants, relRepo, invRepo, undefined, () => new Date(clock));
    operator = await merchants.create({ ...business('op@x.co'), is_marketplace_operator: true });
  });

  it('setup: operators only; repeated setup updates the name and keeps the default unless given', async () => {
    const plain = await merchants.create(business('plain@x.co'));
    await expect(svc.setup(plain.id, S, { marketplace_name: 'X' })).rejects.toMatchObject({
      code: 'MARKETPLACE_OPERATOR_REQUIRED',
    });
    const first = await svc.setup(operator.id, S, { marketplace_name: 'Shop', default_commission_rate: 8 });
    expect(first.settings).toMatchObject({ name: 'Shop', default_commission_rate: '0.0800', status: 'active' });
    const again = await svc.setup(operator.id, S, { marketplace_name: 'Shop 2' });
    expect(again.settings).toMatchObject({ name: 'Shop 2', default_commission_rate: '0.0800' });
    expect(again.settings.created_at).toEqual(first.settings.created_at);
    expect(merchantRepo.events.at(-1)).toMatchObject({
      subject: 'merchants.marketplace_updated',
      mode: S,
      data: { mode: S, name: 'Shop 2' },
    });
  });

  it('link requires a marketplace set up in the mode of the key', async () => {
    await expect(svc.link(operator.id, S, business('s@x.co'))).rejects.toMatchObject({
      code: 'MARKETPLACE_NOT_SET_UP',
    });
    await svc.setup(operator.id, S, { marketplace_name: 'Shop' });
    await expect(svc.link(operator.id, L, business('s@x.co'))).rejects.toMatchObject({
      code: 'MARKETPLACE_NOT_SET_UP',
    });
  });

  it('creates an active sub-merchant, caches membership on it and emits relationship_changed with the mode', async () => {
    await svc.setup(operator.id, S, { marketplace_name: 'Shop', default_commission_rate: 8 });
    const view = await svc.link(operator.id, S, { ...business('Sub@X.co'), commission_rate: 5 });
    expect(view).toMatchObject({
      merchant_email: 'sub@x.co',
      commission_rate: '0.0500',
      commission_source: 'merchant',
      relationship: { status: 'active', invite_token: null, marketplace_id: operator.id, mode: S, version: 1 },
    });
    const sub = await merchants.fresh(view.relationship.merchant_id);
    expect(sub.membership).toEqual({
      sandbox: expect.objectContaining({ marketplace_id: operator.id, marketplace_commission_rate: '0.0500' }),
    });
    expect(sub.is_marketplace_operator).toBe(false);
    expect(relRepo.events[0]).toMatchObject({
      subject: 'merchants.relationship_changed',
      mode: S,
      data: { mode: S, status: 'active', commission_rate: '0.0500', change: 'created', version: 1 },
    });
  });

  it('a retried create after a crash before the relationship write finishes the job', async () => {
    await svc.setup(operator.id, S, { marketplace_name: 'Shop' });
    const orphan = await merchants.create({ ...business('orphan@x.co'), created_by_marketplace_id: operator.id });
    const view = await svc.link(operator.id, S, business('orphan@x.co'));
    expect(view.relationship.merchant_id).toBe(orphan.id);
    // Somebody else's e-mail is still a conflict.
    await merchants.create(business('taken@x.co'));
    await expect(svc.link(operator.id, S, business('taken@x.co'))).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
  });

  describe('modes: sandbox and live are separate marketplaces', () => {
    let sub: number;
    beforeEach(async () => {
      await svc.setup(operator.id, S, { marketplace_name: 'Shop', default_commission_rate: 8 });
      await svc.setup(operator.id, L, { marketplace_name: 'Shop', default_commission_rate: 2 });
      sub = (await svc.link(operator.id, L, business('both@x.co'))).relationship.merchant_id;
    });

    it('live is invisible to sandbox: no split, no list, no commission/suspend/reactivate', async () => {
      expect(await svc.resolveSplit(operator.id, sub, L)).toMatchObject({ active: true, commission_rate: '0.0200' });
      await expect(svc.resolveSplit(operator.id, sub, S)).rejects.toMatchObject({ code: 'RELATIONSHIP_NOT_FOUND' });
      expect((await svc.list(operator.id, S, 'active', 1, 20)).total).toBe(0);
      for (const attempt of [
        () => svc.updateCommission(operator.id, S, sub, 50),
        () => svc.remove(operator.id, S, sub),
        () => svc.reactivate(operator.id, S, sub),
      ]) {
        await expect(attempt()).rejects.toMatchObject({ code: 'RELATIONSHIP_NOT_FOUND' });
      }
      expect(await svc.resolveSplit(operator.id, sub, L)).toMatchObject({ active: true, commission_rate: '0.0200' });
      // A sandbox default never changes the live one.
      await svc.setup(operator.id, S, { marketplace_name: 'Shop', default_commission_rate: 90 });
      expect((await svc.resolveSplit(operator.id, sub, L)).commission_rate).toBe('0.0200');
    });

    it('a sandbox relationship of the same business never affects live splits, and the reverse', async () => {
      // The operator created the business: it joins sandbox with the same fields and its sandbox key.
      const again = await svc.link(operator.id, S, business('both@x.co'));
      expect(again.relationship).toMatchObject({ merchant_id: sub, mode: S });
      await svc.updateCommission(operator.id, S, sub, 40);
      await svc.remove(operator.id, S, sub);
      expect(await svc.resolveSplit(operator.id, sub, S)).toMatchObject({ active: false, status: 'suspended' });
      expect(await svc.resolveSplit(operator.id, sub, L)).toMatchObject({
        active: true,
        commission_rate: '0.0200',
        commission_source: 'marketplace_default',
      });
      expect(await membership(sub, L)).toMatchObject({ marketplace_id: operator.id });
      expect(await membership(sub, S)).toMatchObject({ marketplace_id: null });
      await svc.remove(operator.id, L, sub);
      await svc.reactivate(operator.id, S, sub);
      expect((await svc.resolveSplit(operator.id, sub, S)).active).toBe(true);
      expect((await svc.resolveSplit(operator.id, sub, L)).active).toBe(false);
    });

    it('an invitation belongs to one mode: accepting it with a key of the other mode finds nothing', async () => {
      const existing = await merchants.create(business('e@x.co'));
      const inv = await svc.invite(operator.id, L, { merchant_id: existing.id });
      await expect(svc.acceptInvitation(existing.id, S, inv.id)).rejects.toMatchObject({
        code: 'INVITATION_NOT_FOUND',
      });
      await expect(svc.cancelInvitation(operator.id, S, inv.id)).rejects.toMatchObject({
        code: 'INVITATION_NOT_FOUND',
      });
      expect((await svc.listInvitations(existing.id, S, 'received', undefined, 1, 20)).total).toBe(0);
      await svc.acceptInvitation(existing.id, L, inv.id);
      expect((await svc.resolveSplit(operator.id, existing.id, L)).active).toBe(true);
      await expect(svc.resolveSplit(operator.id, existing.id, S)).rejects.toMatchObject({
        code: 'RELATIONSHIP_NOT_FOUND',
      });
    });
  });

  describe('invitations', () => {
    let existing: MerchantRecord;
    beforeEach(async () => {
      await svc.setup(operator.id, S, { marketplace_name: 'Shop' });
      existing = await merchants.create(business('e@x.co'));
    });

    it('invites without a relationship and without the e-mail; joins only on acceptance', async () => {
      const inv = await svc.invite(operator.id, S, { merchant_id: existing.id, commission_rate: 4 });
      expect(inv).toMatchObject({ status: 'pending', mode: S, commission_rate: '0.0400', marketplace_name: 'Shop' });
      expect(JSON.stringify(inv)).not.toContain('e@x.co');
      expect(inv.expires_at.getTime() - inv.invited_at.getTime()).toBe(INVITATION_TTL_MS);
      expect(relRepo.docs.size).toBe(0);
      await expect(svc.resolveSplit(operator.id, existing.id, S)).rejects.toMatchObject({
        code: 'RELATIONSHIP_NOT_FOUND',
      });
      // A repeated invitation while pending is the same invitation.
      expect((await svc.invite(operator.id, S, { merchant_id: existing.id })).id).toBe(inv.id);

      const other = await merchants.create(business('other@x.co'));
      await expect(svc.acceptInvitation(other.id, S, inv.id)).rejects.toMatchObject({ code: 'INVITATION_NOT_FOUND' });
      await expect(svc.acceptInvitation(operator.id, S, inv.id)).rejects.toMatchObject({
        code: 'INVITATION_NOT_FOUND',
      });
      const accepted = await svc.acceptInvitation(existing.id, S, inv.id);
      expect(accepted).toMatchObject({
        merchant_email: 'e@x.co',
        commission_rate: '0.0400',
        relationship: { status: 'active', mode: S, invite_token: null, invitation_id: inv.id, version: 1 },
      });
      expect(accepted.relationship.invited_at).toEqual(inv.invited_at);
      expect(await svc.resolveSplit(operator.id, existing.id, S)).toMatchObject({ active: true });
      expect(await membership(existing.id)).toMatchObject({ marketplace_id: operator.id });
      expect(relRepo.events.at(-1)).toMatchObject({ data: { change: 'accepted', mode: S } });
      expect((await invRepo.findById(inv.id))!).toMatchObject({ status: 'accepted', relationship_written: true });
      // Accepting again answers the same relationship; declining or cancelling it now is refused.
      expect((await svc.acceptInvitation(existing.id, S, inv.id)).relationship.id).toBe(accepted.relationship.id);
      await expect(svc.declineInvitation(existing.id, S, inv.id)).rejects.toMatchObject({ code: 'INVITATION_CLOSED' });
      await expect(svc.cancelInvitation(operator.id, S, inv.id)).rejects.toMatchObject({ code: 'INVITATION_CLOSED' });
    });

    it('answers the same for unknown ids, operators and someone else’s sub-merchants (no enumeration)', async () => {
      const op2 = await merchants.create({ ...business('op2@x.co'), is_marketplace_operator: true });
      await svc.setup(op2.id, S, { marketplace_name: 'Other' });
      const taken = (await svc.link(op2.id, S, business('taken@x.co'))).relationship.merchant_id;
      const shape = (inv: InvitationRecord) => Object.keys(inv).sort();
      const answers = [];
      for (const merchant_id of [existing.id, 999_999, op2.id, taken]) {
        answers.push(await svc.invite(operator.id, S, { merchant_id }));
      }
      expect(new Set(answers.map((a) => JSON.stringify([shape(a), a.status, a.marketplace_name]))).size).toBe(1);
      // None of those can be accepted; the taken one is refused to the business itself, which knows.
      await expect(svc.acceptInvitation(op2.id, S, answers[2]!.id)).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
      });
      await expect(svc.acceptInvitation(taken, S, answers[3]!.id)).rejects.toMatchObject({
        code: 'MERCHANT_ALREADY_LINKED',
      });
      expect((await invRepo.findById(answers[3]!.id))!.status).toBe('pending');
      // Its own id, or both ways of adding at once, are the caller's own mistakes.
      await expect(svc.invite(operator.id, S, { merchant_id: operator.id })).rejects.toMatchObject({
        param: 'merchant_id',
      });
      await expect(svc.invite(operator.id, S, { merchant_id: existing.id, email: 'a@b.co' })).rejects.toMatchObject({
        param: 'email',
      });
    });

    it('a pending invitation blocks nothing: another marketplace can invite and win the slot', async () => {
      const op2 = await merchants.create({ ...business('op2@x.co'), is_marketplace_operator: true });
      await svc.setup(op2.id, S, { marketplace_name: 'Other' });
      const first = await svc.invite(operator.id, S, { merchant_id: existing.id });
      const second = await svc.invite(op2.id, S, { merchant_id: existing.id });
      expect((await svc.listInvitations(existing.id, S, 'received', 'pending', 1, 20)).total).toBe(2);
      await svc.acceptInvitation(existing.id, S, second.id);
      await expect(svc.acceptInvitation(existing.id, S, first.id)).rejects.toMatchObject({
        code: 'MERCHANT_ALREADY_LINKED',
      });
      expect((await svc.resolveSplit(op2.id, existing.id, S)).active).toBe(true);
    });

    it('expires after 7 days (at read, then stored by the sweep); decline and cancel close it', async () => {
      const inv = await svc.invite(operator.id, S, { merchant_id: existing.id });
      clock += INVITATION_TTL_MS;
      await expect(svc.acceptInvitation(existing.id, S, inv.id)).rejects.toMatchObject({
        code: 'INVITATION_CLOSED',
        detail: 'The invitation is expired',
      });
      expect((await svc.listInvitations(operator.id, S, 'sent', 'expired', 1, 20)).total).toBe(1);
      expect(await svc.expireInvitations()).toBe(1);
      expect((await invRepo.findById(inv.id))!.status).toBe('expired');
      // The expired one no longer holds the open slot: a new invitation can be sent.
      const renewed = await svc.invite(operator.id, S, { merchant_id: existing.id });
      expect(renewed.id).not.toBe(inv.id);
      const declined = await svc.declineInvitation(existing.id, S, renewed.id);
      expect(declined).toMatchObject({ status: 'declined', responded_at: new Date(clock) });
      await expect(svc.acceptInvitation(existing.id, S, renewed.id)).rejects.toMatchObject({
        code: 'INVITATION_CLOSED',
      });
      const third = await svc.invite(operator.id, S, { merchant_id: existing.id });
      await expect(svc.declineInvitation(existing.id, S, 'inv_nope')).rejects.toMatchObject({
        code: 'INVITATION_NOT_FOUND',
      });
      const op2 = await merchants.create({ ...business('op2@x.co'), is_marketplace_operator: true });
      await expect(svc.cancelInvitation(op2.id, S, third.id)).rejects.toMatchObject({ code: 'INVITATION_NOT_FOUND' });
      expect((await svc.cancelInvitation(operator.id, S, third.id)).status).toBe('cancelled');
      expect((await svc.listInvitations(existing.id, S, 'received', 'pending', 1, 20)).total).toBe(0);
    });

    it('a crash between accepting the invitation and writing the relationship is finished by retry or sweep', async () => {
      const inv = await svc.invite(operator.id, S, { merchant_id: existing.id });
      // The first write of an acceptance happened, then the process died.
      await invRepo.closePending(inv.id, 'accepted', new Date(clock), { relationshipId: 77 });
      await expect(svc.resolveSplit(operator.id, existing.id, S)).rejects.toMatchObject({
        code: 'RELATIONSHIP_NOT_FOUND',
      });
      expect(await svc.completeAcceptances()).toBe(0); // not old enough yet
      clock += ACCEPTANCE_REPAIR_AFTER_MS;
      expect(await svc.completeAcceptances()).toBe(1);
      expect(await svc.resolveSplit(operator.id, existing.id, S)).toMatchObject({ active: true, relationship_id: 77 });
      expect(await svc.completeAcceptances()).toBe(0);
      // The business retrying its accept gets the same relationship, never a second one.
      expect((await svc.acceptInvitation(existing.id, S, inv.id)).relationship.id).toBe(77);
      expect(relRepo.docs.size).toBe(1);
    });
  });

  it('resolveSplit: merchant rate → default → 0, suspended inactive, foreign/unknown not found', async () => {
    await svc.setup(operator.id, S, { marketplace_name: 'Shop' });
    const a = (await svc.link(operator.id, S, business('a@x.co'))).relationship.merchant_id;
    expect(await svc.resolveSplit(operator.id, a, S)).toMatchObject({
      active: true,
      commission_rate: '0.0000',
      commission_source: 'none',
    });
    await svc.setup(operator.id, S, { marketplace_name: 'Shop', default_commission_rate: 7.5 });
    expect(await svc.resolveSplit(operator.id, a, S)).toMatchObject({
      commission_rate: '0.0750',
      commission_source: 'marketplace_default',
    });
    await svc.updateCommission(operator.id, S, a, 3);
    expect(await svc.resolveSplit(operator.id, a, S)).toMatchObject({
      commission_rate: '0.0300',
      commission_source: 'merchant',
    });
    const back = await svc.updateCommission(operator.id, S, a, undefined);
    expect(back).toMatchObject({ commission_rate: '0.0750', commission_source: 'marketplace_default' });
    expect(back.relationship.commission_rate).toBeNull();

    await svc.remove(operator.id, S, a);
    expect(await svc.resolveSplit(operator.id, a, S)).toMatchObject({ active: false, status: 'suspended' });
    expect((await membership(a))?.marketplace_id).toBeNull();
    await expect(svc.remove(operator.id, S, a)).rejects.toMatchObject({ code: 'RELATIONSHIP_NOT_FOUND' });
    const re = await svc.reactivate(operator.id, S, a);
    expect(re.relationship.status).toBe('active');
    expect((await membership(a))?.marketplace_id).toBe(operator.id);

    const op2 = await merchants.create({ ...business('op2@x.co'), is_marketplace_operator: true });
    await expect(svc.resolveSplit(op2.id, a, S)).rejects.toMatchObject({ code: 'RELATIONSHIP_NOT_FOUND' });
    await expect(svc.updateCommission(op2.id, S, a, 1)).rejects.toMatchObject({ code: 'RELATIONSHIP_NOT_FOUND' });
    await expect(svc.resolveSplit(operator.id, 424242, S)).rejects.toMatchObject({ code: 'RELATIONSHIP_NOT_FOUND' });
    const plain = await merchants.create(business('plain@x.co'));
    await expect(svc.resolveSplit(plain.id, a, S)).rejects.toMatchObject({ code: 'MARKETPLACE_OPERATOR_REQUIRED' });
  });

  it('describeSubMerchant: relationship status and business facts in the caller mode; foreign/unknown not found; no business → null', async () => {
    await svc.setup(operator.id, S, { marketplace_name: 'Shop' });
    const a = (await svc.link(operator.id, S, { ...business('a@x.co'), business_name: 'Ada Foods' })).relationship
      .merchant_id;
    expect(await svc.describeSubMerchant(operator.id, a, S)).toMatchObject({
      active: true,
      status: 'active',
      marketplace_id: operator.id,
      merchant: { id: a, country: 'NG', baseline_currency: 'NGN', business_name: 'Ada Foods' },
    });
    // A sandbox relationship does not exist for live callers.
    await expect(svc.describeSubMerchant(operator.id, a, 'live')).rejects.toMatchObject({
      code: 'RELATIONSHIP_NOT_FOUND',
    });
    await svc.remove(operator.id, S, a);
    expect(await svc.describeSubMerchant(operator.id, a, S)).toMatchObject({ active: false, status: 'suspended' });
    const op2 = await merchants.create({ ...business('op2@x.co'), is_marketplace_operator: true });
    await expect(svc.describeSubMerchant(op2.id, a, S)).rejects.toMatchObject({ code: 'RELATIONSHIP_NOT_FOUND' });
    await expect(svc.describeSubMerchant(operator.id, 424242, S)).rejects.toMatchObject({
      code: 'RELATIONSHIP_NOT_FOUND',
    });
    const plain = await merchants.create(business('plain@x.co'));
    await expect(svc.describeSubMerchant(plain.id, a, S)).rejects.toMatchObject({
      code: 'MARKETPLACE_OPERATOR_REQUIRED',
    });
    merchantRepo.docs.delete(a);
    expect((await svc.describeSubMerchant(operator.id, a, S)).merchant).toBeNull();
  });

  it('records KYC outcomes per mode, newest version wins, and shows those of the relationship mode', async () => {
    const L: Mode = 'live';
    await svc.setup(operator.id, L, { marketplace_name: 'Shop' });
    const a = (await svc.link(operator.id, L, business('a@x.co'))).relationship.merchant_id;
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
    // A sandbox outcome is recorded for the sandbox and never shows on the live relationship.
    expect(await svc.recordKycOutcome(facts('sandbox', 4, 'pending_review', false), at)).toBe(true);
    const [view] = (await svc.list(operator.id, L, 'active', 1, 20)).items;
    expect(relationshipResource(view!)).toMatchObject({ mode: 'live', kyc_status: 'approved', payouts_enabled: true });
    const other = await svc.link(operator.id, L, business('b@x.co'));
    expect(relationshipResource(other)).toMatchObject({ kyc_status: 'not_started', payouts_enabled: false });
  });

  it('a write based on a stale version is refused (optimistic concurrency)', async () => {
    await svc.setup(operator.id, S, { marketplace_name: 'Shop' });
    const a = (await svc.link(operator.id, S, business('a@x.co'))).relationship.merchant_id;
    const stale = (await relRepo.findByMerchant(a, S))!;
    await svc.updateCommission(operator.id, S, a, 4);
    const lost = await relRepo.update(stale, ['active'], { commission_rate: '0.0100' }, relRepo.events[0]!);
    expect(lost).toBeNull();
    expect((await relRepo.findByMerchant(a, S))!.commission_rate).toBe('0.0400');
  });

  it('the membership cache never goes backwards and is repaired by syncMerchant', async () => {
    await svc.setup(operator.id, S, { marketplace_name: 'Shop' });
    const a = (await svc.link(operator.id, S, business('a@x.co'))).relationship.merchant_id;
    await svc.remove(operator.id, S, a);
    // A stale (older version) sync is ignored.
    expect(
      await merchants.syncMembership(a, S, {
        marketplace_id: operator.id,
        marketplace_commission_rate: null,
        relationship_id: 1,
        version: 1,
      }),
    ).toBe(false);
    expect((await membership(a))?.marketplace_id).toBeNull();
    // Simulate a crash after the relationship write: the cache missed a change; the consumer repairs it.
    const rel = (await relRepo.findByMerchant(a, S))!;
    relRepo.docs.get(rel.id)!.status = 'active';
    relRepo.docs.get(rel.id)!.version += 1;
    await svc.syncMerchant(a, L);
    expect((await membership(a))?.marketplace_id).toBeNull();
    await svc.syncMerchant(a, S);
    expect((await membership(a))?.marketplace_id).toBe(operator.id);
  });

  it('lists the operator’s relationships by status with e-mails', async () => {
    await svc.setup(operator.id, S, { marketplace_name: 'Shop' });
    for (const e of ['a', 'b', 'c']) await svc.link(operator.id, S, business(`${e}@x.co`));
    const page = await svc.list(operator.id, S, 'active', 2, 2);
    expect(page.total).toBe(3);
    expect(page.items.map((i) => i.merchant_email)).toEqual(['c@x.co']);
    expect((await svc.list(operator.id, S, 'suspended', 1, 20)).total).toBe(0);
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
