import { PlatformError, type ComponentName, type Mode, type OutboxEntry } from '@ppay/kernel';
import { MemoryMerchants, MemoryRelationships } from '../memory-ports.test-util';
import { MerchantService } from '../merchants/merchants';
import { joinedRelationship } from '../relationships/relationship';
import { MerchantDeletionService } from './deletions';
import { DELETION_PARTICIPANTS, type GatewayAccountOutcome, type MerchantDeletionRecord } from './merchant-deletion';
import type { GatewayAccounts, MerchantDeletionRepository } from './ports';

class MemoryDeletions implements MerchantDeletionRepository {
  docs = new Map<string, MerchantDeletionRecord>();
  events: OutboxEntry[] = [];
  /** Services that acknowledge as soon as a request event is written (the consumers, in memory). */
  respondingServices: ComponentName[] = [...DELETION_PARTICIPANTS];
  async create(record: MerchantDeletionRecord, event: OutboxEntry) {
    const existing = this.docs.get(record.id);
    if (existing) return { ...existing };
    this.docs.set(record.id, { ...record, acknowledged: [] });
    this.published(record.id, event);
    return record;
  }
  async findById(id: string) {
    const d = this.docs.get(id);
    return d ? { ...d, acknowledged: [...d.acknowledged] } : null;
  }
  async latestBy(operatorId: number, merchantId: number, mode: Mode) {
    return this.latest((d) => d.merchant_id === merchantId && d.mode === mode && d.requested_by === operatorId);
  }
  async latestFor(merchantId: number, mode: Mode) {
    return this.latest((d) => d.merchant_id === merchantId && d.mode === mode);
  }
  private latest(match: (d: MerchantDeletionRecord) => boolean) {
    const found = [...this.docs.values()].filter(match).sort((a, b) => +b.requested_at - +a.requested_at)[0];
    return Promise.resolve(found ? { ...found, acknowledged: [...found.acknowledged] } : null);
  }
  async acknowledge(deletionId: string, service: ComponentName) {
    const d = [...this.docs.values()].find((r) => r.deletion_id === deletionId);
    if (!d) return false;
    if (!d.acknowledged.includes(service)) d.acknowledged.push(service);
    return true;
  }
  async requestAgain(id: string, event: OutboxEntry) {
    this.published(id, event);
  }
  private published(id: string, event: OutboxEntry) {
    this.events.push(event);
    const d = this.docs.get(id)!;
    for (const s of this.respondingServices) void this.acknowledge(d.deletion_id, s);
  }
}

class FakeGateway implements GatewayAccounts {
  calls = 0;
  constructor(public outcome: GatewayAccountOutcome) {}
  async closeForDeletion() {
    this.calls++;
    return this.outcome;
  }
}

const S: Mode = 'sandbox';
const L: Mode = 'live';
const NO_ACCOUNT: GatewayAccountOutcome = {
  found: false,
  closed: false,
  available: null,
  pending: null,
  gateway_account_id: null,
};

async function world(gateway: GatewayAccountOutcome = NO_ACCOUNT) {
  const repo = new MemoryMerchants();
  const merchants = new MerchantService(repo);
  const relationships = new MemoryRelationships();
  const deletions = new MemoryDeletions();
  const gatewayAccounts = new FakeGateway(gateway);
  let clock = 0;
  const svc = new MerchantDeletionService(
    { merchants, relationships, deletions, gatewayAccounts },
    { waitMs: 1_000, pollMs: 100 },
    () => new Date(1_700_000_000_000 + clock),
    async (ms) => void (clock += ms),
  );
  const operator = await merchants.create({
    email: 'op@x.co',
    country: 'US',
    baseline_currency: 'USD',
    is_marketplace_operator: true,
  });
  const other = await merchants.create({
    email: 'op2@x.co',
    country: 'US',
    baseline_currency: 'USD',
    is_marketplace_operator: true,
  });
  const sub = await merchants.create({
    email: 'sub@x.co',
    country: 'US',
    baseline_currency: 'USD',
    created_by_marketplace_id: operator.id,
  });
  const link = async (merchantId: number, marketplaceId: number, mode: Mode) => {
    const id = await relationships.nextId();
    await relationships.insert(
      joinedRelationship(
        {
          id,
          marketplace_id: marketplaceId,
          merchant_id: merchantId,
          mode,
          commission_rate: null,
        },
        null,
        new Date(),
      ),
      {} as OutboxEntry,
    );
    await repo.syncMembership(merchantId, mode, {
      marketplace_id: marketplaceId,
      marketplace_commission_rate: null,
      relationship_id: id,
      version: 1,
    });
  };
  return { svc, repo, relationships, deletions, gatewayAccounts, operator, other, sub, link };
}

describe('delete merchant (spec 3.5, 4.9, 7.6)', () => {
  it('removes the relationship, clears the references, requests the deletion and answers once all six acknowledged', async () => {
    const w = await world();
    await w.link(w.sub.id, w.operator.id, S);
    const res = await w.svc.delete(w.operator.id, S, w.sub.id);
    expect(res).toEqual({ gateway_skipped: false, gateway_balance: null, message: expect.any(String) });
    expect(await w.relationships.findByMerchant(w.sub.id, S)).toBeNull();
    expect((await w.repo.findById(w.sub.id))!.membership?.[S]).toBeUndefined();
    expect(w.deletions.events).toHaveLength(1);
    expect(w.deletions.events[0]).toMatchObject({
      subject: 'deletions.merchant.requested',
      data: { merchant_id: w.sub.id, mode: S, every_mode: true },
    });
  });

  it('keeps a gateway account with money on it and reports its balance (available + pending)', async () => {
    const w = await world({
      found: true,
      closed: false,
      available: { amount: 1250, currency: 'USD' },
      pending: { amount: 100, currency: 'USD' },
      gateway_account_id: 'acct_1',
    });
    await w.link(w.sub.id, w.operator.id, S);
    const res = await w.svc.delete(w.operator.id, S, w.sub.id);
    expect(res.gateway_skipped).toBe(true);
    expect(res.gateway_balance).toEqual({ amount: { amount: 1350, currency: 'USD' } });
    expect(res.message).toContain('12.50 USD available');
  });

  it('reports a zero balance of a closed account without skipping', async () => {
    const zero = { amount: 0, currency: 'JPY' };
    const w = await world({ found: true, closed: true, available: zero, pending: zero, gateway_account_id: 'acct_1' });
    await w.link(w.sub.id, w.operator.id, S);
    expect(await w.svc.delete(w.operator.id, S, w.sub.id)).toMatchObject({
      gateway_skipped: false,
      gateway_balance: { amount: zero },
    });
  });

  it("answers 404 for another operator's merchant, an unknown one, and the other mode's relationship", async () => {
    const w = await world();
    await w.link(w.sub.id, w.other.id, S);
    for (const [mode, id] of [
      [S, w.sub.id],
      [S, 999_999],
      [L, w.sub.id],
    ] as const) {
      await expect(w.svc.delete(w.operator.id, mode, id)).rejects.toMatchObject({
        code: 'MERCHANT_RELATIONSHIP_NOT_FOUND',
      });
    }
    expect(w.gatewayAccounts.calls).toBe(0);
    expect(await w.relationships.findByMerchant(w.sub.id, S)).not.toBeNull();
  });

  it('refuses a caller that is not an operator (403) and an invalid id (400)', async () => {
    const w = await world();
    await expect(w.svc.delete(w.sub.id, S, w.operator.id)).rejects.toMatchObject({
      code: 'MARKETPLACE_OPERATOR_REQUIRED',
    });
    await expect(w.svc.delete(w.operator.id, S, 0)).rejects.toMatchObject({ code: 'INVALID_MERCHANT_ID' });
  });

  it('answers 400 naming the services that did not acknowledge, and a retry finishes the job', async () => {
    const w = await world();
    await w.link(w.sub.id, w.operator.id, S);
    w.deletions.respondingServices = ['payments', 'marketplace', 'fx-pricing', 'subscriptions', 'webhooks'];
    const err = await w.svc.delete(w.operator.id, S, w.sub.id).catch((e: PlatformError) => e);
    expect(err).toMatchObject({
      code: 'MERCHANT_DELETION_INCOMPLETE',
      message: 'Failed to delete merchant business data',
    });
    expect((err as PlatformError).detail).toContain('kyc');
    expect((err as PlatformError).detail).not.toContain('payments');
    // kyc comes back: the same call resumes from the stored deletion (the relationship is gone by now).
    w.deletions.respondingServices = ['kyc'];
    const res = await w.svc.delete(w.operator.id, S, w.sub.id);
    expect(res.gateway_skipped).toBe(false);
    expect(w.deletions.events).toHaveLength(2); // the request again, for whoever missed it
    expect(w.gatewayAccounts.calls).toBe(1); // the stored outcome answers the retry
    // A third call is a plain repeat with the same answer.
    expect(await w.svc.delete(w.operator.id, S, w.sub.id)).toEqual(res);
  });

  it("a finished deletion is still another operator's 404", async () => {
    const w = await world();
    await w.link(w.sub.id, w.operator.id, S);
    await w.svc.delete(w.operator.id, S, w.sub.id);
    await expect(w.svc.delete(w.other.id, S, w.sub.id)).rejects.toMatchObject({
      code: 'MERCHANT_RELATIONSHIP_NOT_FOUND',
    });
  });

  describe('a deletion belongs to the relationship it deleted (Hardening 2 item 7)', () => {
    /** A business the operator did not create: a sandbox deletion leaves it, free to join again. */
    async function independent(w: Awaited<ReturnType<typeof world>>) {
      return new MerchantService(w.repo).create({ email: 'own@x.co', country: 'US', baseline_currency: 'USD' });
    }

    it('a business that joins again is deleted again: a fresh deletion with fresh acknowledgements', async () => {
      const w = await world();
      const biz = await independent(w);
      await w.link(biz.id, w.operator.id, S);
      await w.svc.delete(w.operator.id, S, biz.id);
      await w.link(biz.id, w.operator.id, S);
      // Only the first deletion's services answer at first: the second one is not done by the first one's acks.
      w.deletions.respondingServices = [];
      const pending = await w.svc.delete(w.operator.id, S, biz.id).catch((e: PlatformError) => e);
      expect(pending).toMatchObject({ code: 'MERCHANT_DELETION_INCOMPLETE' });
      const [first, second] = [...w.deletions.docs.values()];
      expect(second!.deletion_id).not.toBe(first!.deletion_id);
      expect([first!.acknowledged.length, second!.acknowledged]).toEqual([6, []]);
      expect(second!.relationship_id).not.toBe(first!.relationship_id);
      expect(w.deletions.events.map((e) => (e.data as { deletion_id: string }).deletion_id)).toEqual([
        first!.deletion_id,
        second!.deletion_id,
      ]);
      expect(await w.relationships.findByMerchant(biz.id, S)).toBeNull();
      w.deletions.respondingServices = [...DELETION_PARTICIPANTS];
      expect(await w.svc.delete(w.operator.id, S, biz.id)).toMatchObject({ gateway_skipped: false });
      expect(w.deletions.docs.get(second!.id)!.acknowledged).toHaveLength(6);
      expect(w.gatewayAccounts.calls).toBe(2); // each relationship's account was read once
    });

    it("another operator's later relationship is not blocked by the old deletion; the old operator's repeat answers its own", async () => {
      const w = await world();
      const biz = await independent(w);
      await w.link(biz.id, w.operator.id, S);
      const mine = await w.svc.delete(w.operator.id, S, biz.id);
      await w.link(biz.id, w.other.id, S);
      // The first operator repeating its call hears its own finished deletion, and touches nothing.
      expect(await w.svc.delete(w.operator.id, S, biz.id)).toEqual(mine);
      expect(await w.relationships.findByMerchant(biz.id, S)).not.toBeNull();
      expect(w.deletions.events).toHaveLength(1);
      // The new operator deletes its own relationship.
      await w.svc.delete(w.other.id, S, biz.id);
      expect(w.deletions.events).toHaveLength(2);
      expect(w.deletions.events[1]!.data).toMatchObject({ merchant_id: biz.id, mode: S });
      expect(await w.relationships.findByMerchant(biz.id, S)).toBeNull();
    });

    it('the same relationship resumes its deletion (a crash before the relationship was removed)', async () => {
      const w = await world();
      await w.link(w.sub.id, w.operator.id, S);
      const rel = (await w.relationships.findByMerchant(w.sub.id, S))!;
      w.relationships.remove = async () => undefined; // the crash: the relationship stays
      await w.svc.delete(w.operator.id, S, w.sub.id);
      await w.svc.delete(w.operator.id, S, w.sub.id);
      expect(w.deletions.docs.size).toBe(1);
      expect([...w.deletions.docs.keys()]).toEqual([`${w.sub.id}:sandbox:r${rel.id}`]);
    });
  });

  it('deletes only the mode when the business still belongs to a marketplace in the other mode', async () => {
    const w = await world();
    await w.link(w.sub.id, w.operator.id, S);
    await w.link(w.sub.id, w.operator.id, L);
    await w.svc.delete(w.operator.id, S, w.sub.id);
    expect(w.deletions.events[0]!.data).toMatchObject({ mode: S, every_mode: false });
    expect(await w.relationships.findByMerchant(w.sub.id, L)).not.toBeNull();
    expect((await w.repo.findById(w.sub.id))!.membership?.[L]).toBeDefined();
  });

  it('a sandbox key never deletes a business it did not create beyond its sandbox data', async () => {
    const w = await world();
    const independent = await new MerchantService(w.repo).create({
      email: 'own@x.co',
      country: 'US',
      baseline_currency: 'USD',
    });
    await w.link(independent.id, w.operator.id, S);
    await w.svc.delete(w.operator.id, S, independent.id);
    expect(w.deletions.events[0]!.data).toMatchObject({ mode: S, every_mode: false });
  });

  it('refuses to delete a marketplace operator as a sub-merchant', async () => {
    const w = await world();
    await w.link(w.other.id, w.operator.id, S);
    await expect(w.svc.delete(w.operator.id, S, w.other.id)).rejects.toMatchObject({ code: 'MERCHANT_IS_OPERATOR' });
  });
});
