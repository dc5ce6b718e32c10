import type { Logger } from '@ppay/runtime';
import { INVITATION_TTL_MS } from '../invitations/invitation';
import type { InvitationModel } from '../invitations/invitation.repo';
import type { RelationshipModel } from './relationship.repo';

interface LegacyPending {
  _id: number;
  marketplace_id: number;
  merchant_id: number;
  commission_rate: string | null;
  invite_token: string | null;
  invited_at: Date | null;
  created_at: Date;
}

/**
 * Brings relationships written before modes and the invitations collection existed up to date, at
 * boot, idempotently (every step can be repeated after a crash):
 * 1. the old unique index on merchant_id alone is dropped (the slot is now merchant_id + mode);
 * 2. relationships without a mode are sandbox ones (no live processor ever existed to use them);
 * 3. pending relationships (old invitations) become pending invitations (same token, 7 days from
 *    when they were sent), then the pending relationship is deleted: first write the invitation
 *    (an upsert by token), then the delete, so a crash between them only repeats the upsert.
 */
export async function migrateLegacyMarketplaceData(
  relationships: RelationshipModel,
  invitations: InvitationModel,
  log: Logger,
): Promise<void> {
  const indexes = await relationships.collection.indexes().catch(() => []);
  if (indexes.some((i) => i.name === 'merchant_id_1')) {
    // Another replica booting at the same time may have dropped it first (IndexNotFound, code 27).
    await relationships.collection.dropIndex('merchant_id_1').catch((err: unknown) => {
      if ((err as { code?: unknown } | null)?.code !== 27) throw err;
    });
  }
  const moded = await relationships.updateMany({ mode: { $exists: false } }, { $set: { mode: 'sandbox' } }).exec();
  const pending = (await relationships
    .find({ status: 'pending' }, { outbox: 0 })
    .lean()
    .exec()) as unknown as LegacyPending[];
  for (const rel of pending) {
    const token = rel.invite_token ?? `inv_legacy_${rel._id}`;
    const invitedAt = rel.invited_at ?? rel.created_at;
    await invitations
      .updateOne(
        { _id: token },
        {
          $setOnInsert: {
            marketplace_id: rel.marketplace_id,
            marketplace_name: '',
            merchant_id: rel.merchant_id,
            mode: 'sandbox',
            commission_rate: rel.commission_rate,
            status: 'pending',
            invited_at: invitedAt,
            expires_at: new Date(invitedAt.getTime() + INVITATION_TTL_MS),
            responded_at: null,
            relationship_id: null,
            relationship_written: false,
            // The token itself, never clashing with an invitation sent since.
            open_key: token,
          },
        },
        { upsert: true },
      )
      .exec();
    await relationships.deleteOne({ _id: rel._id, status: 'pending' }).exec();
  }
  if (moded.modifiedCount || pending.length) {
    log.info({ moded: moded.modifiedCount, invitations: pending.length }, 'legacy marketplace data migrated');
  }
}
