import type { Connection } from 'mongoose';
import { SUBJECTS, TtlCache, type ComponentName, type MerchantDeletionScope, type Mode } from '@ppay/kernel';
import type { Logger } from './logger';
import { isDuplicateKeyError } from './mongo';
import { defineConsumer, publishEvent, type ConsumerSpec, type NatsContext } from './nats';

/**
 * Delete merchant (spec 3.5, 4.9): each service declares, in ONE place
 * (`services/<svc>/src/merchant-data.repo.ts`), every collection holding a merchant's data and how
 * to find its documents there. The deletion consumer below deletes them, idempotently, and
 * acknowledges; marketplace collects the acknowledgements (docs/architecture.md, Delete merchant).
 */
export interface MerchantDataTarget {
  collection: string;
  /** The merchant's documents in this collection (every mode). */
  filter(merchantId: number): Record<string, unknown>;
  /**
   * The field holding the document's mode; null for data with no mode (the business record,
   * products), which only a whole-business deletion (`every_mode`) removes.
   */
  modeField: string | null;
}

/** The filter deleting `target`'s documents in `scope`, or null when the scope leaves them alone. */
export function scopedFilter(target: MerchantDataTarget, scope: MerchantDeletionScope): Record<string, unknown> | null {
  const filter = target.filter(scope.merchant_id);
  if (scope.every_mode) return filter;
  if (target.modeField === null) return null;
  return { ...filter, [target.modeField]: scope.mode };
}

/** Deletes every target's documents in `scope`; a repeat deletes nothing more (idempotent). */
export async function purgeMerchantData(
  conn: Connection,
  targets: readonly MerchantDataTarget[],
  scope: MerchantDeletionScope,
): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const target of targets) {
    const filter = scopedFilter(target, scope);
    if (!filter) continue;
    const res = await conn.collection(target.collection).deleteMany(filter);
    deleted[target.collection] = (deleted[target.collection] ?? 0) + res.deletedCount;
  }
  return deleted;
}

export const TOMBSTONES_COLLECTION = 'merchant_tombstones';

/**
 * How long a one-mode deletion's tombstone holds (and the sweep repeats its purge). Late events race
 * the purge for seconds; a business that still exists in the other mode may start again in this one
 * (a new key from its dashboard, a new invitation), which must not be swallowed. A whole-business
 * tombstone holds for ever (merchant ids are never reused).
 */
export const TOMBSTONE_WINDOW_MS = 10 * 60 * 1000;

interface TombstoneDocument {
  _id: string;
  merchant_id: number;
  /** '*' for a whole-business deletion. */
  mode: Mode | '*';
  deletion_id: string;
  deleted_at: Date;
}

const tombstoneId = (merchantId: number, mode: Mode | '*') => `${merchantId}:${mode}`;

/**
 * A service's record that a merchant (one mode, or the whole business) was deleted. Consumers that
 * create documents from events (ledger credits, webhook events, projections) check it, so an event
 * still in flight for the merchant cannot bring its data back after the purge. It holds the id and
 * nothing of the business. Written BEFORE the purge, so a consumer that passed the check before it
 * is caught by the purge itself, and one that passes after it is refused.
 */
export class MerchantTombstones {
  private readonly known = new Set<string>();
  private readonly alive = new TtlCache<string, boolean>(10_000);
  /** Bumped by `record`: part of the cache key, so a check already reading when a tombstone is written is not kept. */
  private generation = 0;

  /**
   * `aliveTtlMs` (default 0: every check reads) keeps a "not deleted" answer that long, for consumers
   * that check once per event at high rates. Safe because a document a consumer writes after the purge
   * is purged again by `tombstoneSweepJob`, which repeats every recent deletion.
   */
  constructor(
    private readonly conn: Connection,
    private readonly now: () => Date = () => new Date(),
    private readonly aliveTtlMs = 0,
  ) {}

  private get collection() {
    return this.conn.collection<TombstoneDocument>(TOMBSTONES_COLLECTION);
  }

  async record(scope: MerchantDeletionScope): Promise<void> {
    const now = this.now();
    const mode = scope.every_mode ? '*' : scope.mode;
    const _id = tombstoneId(scope.merchant_id, mode);
    // Written once per deletion: a repeat of the same deletion keeps its time (the filter misses and the
    // upsert meets the key), a later deletion of the same merchant and mode (it joined again, Hardening 2
    // item 7) starts the window, and the sweep's repeated purge, again.
    await this.collection
      .updateOne(
        { _id, deletion_id: { $ne: scope.deletion_id } },
        { $set: { merchant_id: scope.merchant_id, mode, deletion_id: scope.deletion_id, deleted_at: now } },
        { upsert: true },
      )
      .catch((err: unknown) => {
        if (!isDuplicateKeyError(err)) throw err;
      });
    if (mode === '*') this.known.add(_id);
    this.generation++;
    this.alive.clear();
  }

  /**
   * True when the whole business was deleted (for ever: cached), or `mode` of it within the last
   * TOMBSTONE_WINDOW_MS.
   */
  async isDeleted(merchantId: number, mode: Mode | undefined): Promise<boolean> {
    const whole = tombstoneId(merchantId, '*');
    if (this.known.has(whole)) return true;
    // Concurrent checks for one merchant share one read; only "not deleted" is kept (aliveTtlMs).
    return this.alive.getOrLoad(
      `${this.generation}:${tombstoneId(merchantId, mode ?? '*')}`,
      () => this.readDeleted(merchantId, mode, whole),
      (deleted) => (deleted ? 0 : this.aliveTtlMs),
    );
  }

  private async readDeleted(merchantId: number, mode: Mode | undefined, whole: string): Promise<boolean> {
    const ids = [whole, ...(mode ? [tombstoneId(merchantId, mode)] : [])];
    const found = await this.collection.find({ _id: { $in: ids } }).toArray();
    if (found.some((t) => t._id === whole)) {
      this.known.add(whole);
      return true;
    }
    const since = this.now().getTime() - TOMBSTONE_WINDOW_MS;
    return found.some((t) => new Date(t.deleted_at).getTime() >= since);
  }
}

/**
 * A periodic job that repeats the purge for deletions of the last TOMBSTONE_WINDOW_MS: a consumer that
 * checked the tombstone just before it was written may write just after the purge; the next sweep
 * deletes what it wrote.
 */
export function tombstoneSweepJob(
  conn: Connection,
  targets: readonly MerchantDataTarget[],
  intervalMs = 60_000,
  now: () => Date = () => new Date(),
) {
  return {
    name: 'merchant deletion sweep',
    intervalMs,
    async run(): Promise<number> {
      const since = new Date(now().getTime() - TOMBSTONE_WINDOW_MS);
      const recent = await conn
        .collection<TombstoneDocument>(TOMBSTONES_COLLECTION)
        .find({ deleted_at: { $gte: since } })
        .limit(1000)
        .toArray();
      let deleted = 0;
      for (const t of recent) {
        const scope: MerchantDeletionScope = {
          deletion_id: t.deletion_id,
          merchant_id: t.merchant_id,
          mode: t.mode === '*' ? 'live' : t.mode,
          every_mode: t.mode === '*',
        };
        for (const n of Object.values(await purgeMerchantData(conn, targets, scope))) deleted += n;
      }
      return deleted;
    },
  };
}

export interface MerchantDeletionConsumerOptions {
  service: ComponentName;
  conn: Connection;
  nats: NatsContext;
  targets: readonly MerchantDataTarget[];
  tombstones: MerchantTombstones;
  log?: Logger;
  /** Work that must happen before the documents go (e.g. webhooks evicting the merchant's keys). */
  beforePurge?(scope: MerchantDeletionScope): Promise<void>;
}

/** The acknowledgement's event id: one per (deletion, service), so repeats are the same event. */
export const deletionAckEventId = (deletionId: string, service: ComponentName) => `evt_${deletionId}_${service}`;

/**
 * Every service's consumer of deletions.merchant.requested: tombstone, delete the declared data,
 * acknowledge. Any failure throws, so JetStream redelivers (unlimited, capped backoff) and the whole
 * pass runs again; every step is idempotent, so a crash anywhere is harmless.
 */
export function merchantDeletionConsumer(options: MerchantDeletionConsumerOptions): ConsumerSpec {
  const { service, conn, nats, targets, tombstones, log } = options;
  return defineConsumer({
    stream: 'DELETIONS',
    durable: `${service.replace(/-/g, '_')}_merchant_deletions`,
    subjects: [SUBJECTS.merchantDeletionRequested],
    async handle(event) {
      const scope = event.data;
      await tombstones.record(scope);
      await options.beforePurge?.(scope);
      const deleted = await purgeMerchantData(conn, targets, scope);
      await publishEvent(nats, {
        event_id: deletionAckEventId(scope.deletion_id, service),
        subject: SUBJECTS.merchantDeletionAcknowledged,
        occurred_at: new Date().toISOString(),
        merchant_id: scope.merchant_id,
        mode: scope.mode,
        data: { deletion_id: scope.deletion_id, merchant_id: scope.merchant_id, service, deleted },
      });
      log?.info({ deletion_id: scope.deletion_id, merchant_id: scope.merchant_id, deleted }, 'merchant data deleted');
    },
  });
}
