import type { Connection } from 'mongoose';
import { SUBJECTS, type MerchantDeletionScope } from '@ppay/kernel';
import { publishEvent, scopedFilter, type MerchantDataTarget, type NatsContext } from '@ppay/runtime';

/**
 * Events about a merchant (their payload's `merchant_id`): `about_merchant_id` since the payload is
 * stored as a JSON string (see the event repository), `data.merchant_id` in earlier documents.
 * Deliveries and due entries carry `about_merchant_id` since the same day; earlier ones are found
 * through their events (beforeWebhooksPurge).
 */
const aboutMerchant = (id: number) => [{ about_merchant_id: id }, { 'data.merchant_id': id }];

/** Deliveries and due entries to one of the merchant's keys, or about the merchant. */
const ownedOrAbout = (id: number) => ({ $or: [{ merchant_id: id }, { about_merchant_id: id }] });

/**
 * Every collection of webhooks holding a merchant's data (delete merchant, spec 3.5 / 4.9): the ONE
 * list the deletion consumer purges. A new collection with merchant data is added here, or the
 * delete-merchant integration test (which scans every collection) fails.
 */
export const MERCHANT_DATA: readonly MerchantDataTarget[] = [
  { collection: 'api_keys', filter: (id) => ({ merchant_id: id }), modeField: 'mode' },
  // Due work before its log entry, so no worker picks up a delivery whose log is gone. Both also by
  // `about_merchant_id`: an operator's delivery about the merchant may be stored after the purge (its
  // first attempt was in flight), and the tombstone sweep repeats this list, not beforeWebhooksPurge.
  { collection: 'webhook_due', filter: ownedOrAbout, modeField: 'mode' },
  // Deliveries before events (see beforeWebhooksPurge): a crash in between leaves the events to find again.
  { collection: 'webhook_deliveries', filter: ownedOrAbout, modeField: 'mode' },
  // The merchant's own events, and the events about it its operator received (KYC events carry its
  // identity: names, the business's country) — the sub-merchant's data, wherever it was delivered.
  {
    collection: 'webhook_events',
    filter: (id) => ({ $or: [{ merchant_id: id }, ...aboutMerchant(id)] }),
    modeField: 'mode',
  },
];

/**
 * Runs before the purge: (1) the merchant's keys are announced revoked on APIKEYS, so every gateway
 * evicts them from its key cache at once (deleted keys must stop authenticating now, not after a
 * cache TTL); (2) the operator's deliveries of events about the merchant are deleted (their own
 * `merchant_id` is the operator's, so they are found through their events, which go after them).
 */
export async function beforeWebhooksPurge(
  conn: Connection,
  nats: NatsContext,
  scope: MerchantDeletionScope,
): Promise<void> {
  const keyFilter = scopedFilter(MERCHANT_DATA[0]!, scope)!;
  const keys = await conn.collection('api_keys').find(keyFilter).project({ _id: 1, mode: 1, api_version: 1 }).toArray();
  for (const key of keys) {
    await publishEvent(nats, {
      event_id: `evt_${scope.deletion_id}_${String(key._id)}`,
      subject: SUBJECTS.apiKeyRevoked,
      occurred_at: new Date().toISOString(),
      merchant_id: scope.merchant_id,
      mode: key.mode as MerchantDeletionScope['mode'],
      data: {
        key_id: String(key._id),
        merchant_id: scope.merchant_id,
        mode: key.mode as MerchantDeletionScope['mode'],
        status: 'revoked',
        api_version: String(key.api_version ?? ''),
      },
    });
  }
  const aboutIt = scopedFilter(
    { collection: 'webhook_events', filter: (id) => ({ $or: aboutMerchant(id) }), modeField: 'mode' },
    scope,
  )!;
  const eventIds = (await conn.collection('webhook_events').find(aboutIt).project({ _id: 1 }).toArray()).map(
    (e) => e._id,
  );
  if (eventIds.length) {
    await conn.collection('webhook_due').deleteMany({ event_id: { $in: eventIds } });
    await conn.collection('webhook_deliveries').deleteMany({ event_id: { $in: eventIds } });
  }
}
