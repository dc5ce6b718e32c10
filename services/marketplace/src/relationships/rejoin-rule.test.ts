import type { Mode } from '@ppay/kernel';
import { business, inMemoryMarketplace, S } from '../in-memory-marketplace.test-util';
import { InvitationService } from '../invitations/invitations';
import { DELETION_PARTICIPANTS, type MerchantDeletionRecord } from '../deletions/merchant-deletion';
import { rejoinRule } from './rejoin-rule';
import { RelationshipService } from './relationships';

const WINDOW = 10 * 60_000;
const T0 = Date.parse('2026-11-23T10:00:00Z');

function deletion(merchantId: number, acknowledged: MerchantDeletionRecord['acknowledged']): MerchantDeletionRecord {
  return {
    id: `${merchantId}:sandbox:r1`,
    deletion_id: 'del_1',
    merchant_id: merchantId,
    mode: S,
    relationship_id: 1,
    every_mode: false,
    requested_by: 1,
    gateway: { found: false, closed: false, available: null, pending: null, gateway_account_id: null },
    acknowledged,
    requested_at: new Date(T0),
  };
}

describe('joining a mode again after a deletion (Hardening 2 item 7)', () => {
  it('waits for the deletion to finish and for the tombstone window to pass', async () => {
    const history = new Map<number, MerchantDeletionRecord>([
      [7, deletion(7, ['payments', 'kyc'])],
      [8, deletion(8, [...DELETION_PARTICIPANTS])],
    ]);
    const rule = rejoinRule({ latestFor: async (id: number, _mode: Mode) => history.get(id) ?? null }, WINDOW);
    await expect(rule.assertMayJoin(6, S, new Date(T0))).resolves.toBeUndefined();
    const running = await rule.assertMayJoin(7, S, new Date(T0 + 2 * WINDOW)).catch((e: unknown) => e);
    expect(running).toMatchObject({ code: 'MERCHANT_RECENTLY_DELETED', detail: expect.stringContaining('webhooks') });
    await expect(rule.assertMayJoin(8, S, new Date(T0 + WINDOW - 1))).rejects.toMatchObject({
      code: 'MERCHANT_RECENTLY_DELETED',
      detail: 'It can join again from 2026-11-23T10:10:00.000Z',
    });
    await expect(rule.assertMayJoin(8, S, new Date(T0 + WINDOW))).resolves.toBeUndefined();
  });

  it('is applied where a business joins: accepting an invitation, and its operator adding it again', async () => {
    const w = await inMemoryMarketplace();
    await w.relationships.setup(w.operator.id, S, { marketplace_name: 'Shop' });
    const free = await w.merchants.create(business('free@x.co'));
    const own = await w.merchants.create({ ...business('own@x.co'), created_by_marketplace_id: w.operator.id });
    const history = new Map([
      [free.id, deletion(free.id, [...DELETION_PARTICIPANTS])],
      [own.id, deletion(own.id, [...DELETION_PARTICIPANTS])],
    ]);
    const rule = rejoinRule({ latestFor: async (id: number) => history.get(id) ?? null }, WINDOW);
    const now = () => new Date(w.clock.now);
    const invitations = new InvitationService(
      {
        merchants: w.merchants,
        relationships: w.relRepo,
        invitations: w.invRepo,
        membership: w.membership,
        rejoin: rule,
      },
      now,
    );
    const relationships = new RelationshipService(w.merchants, w.relRepo, w.membership, now, rule);
    const inv = await invitations.invite(w.operator.id, S, { merchant_id: free.id });
    w.clock.now = T0 + 60_000;
    await expect(invitations.accept(free.id, S, inv.id)).rejects.toMatchObject({ code: 'MERCHANT_RECENTLY_DELETED' });
    expect((await w.invRepo.findById(inv.id))!.status).toBe('pending');
    await expect(relationships.create(w.operator.id, S, business('own@x.co'))).rejects.toMatchObject({
      code: 'MERCHANT_RECENTLY_DELETED',
    });
    w.clock.now = T0 + WINDOW;
    expect((await invitations.accept(free.id, S, inv.id)).relationship.merchant_id).toBe(free.id);
    expect(await relationships.create(w.operator.id, S, business('own@x.co'))).toMatchObject({ kind: 'created' });
  });
});
