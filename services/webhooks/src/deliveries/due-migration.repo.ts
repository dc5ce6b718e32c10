import { insertIgnoringDuplicates } from '../bulk-writes.repo';
import { dueOf, type DeliveryDocument, type DeliveryModel, type DueModel } from './delivery-documents.repo';

/**
 * Boot migration: deliveries written before `webhook_due` existed (or by a replica of that version
 * during a rolling upgrade) that are not finished get their due entry, with their lease and counters
 * as stored. Idempotent; runs at every start. Returns how many entries it created. Documents this
 * version wrote (`due_tracked`) are never touched: see DeliveryDocument.due_tracked.
 */
export async function ensureDueEntries(models: { deliveries: DeliveryModel; due: DueModel }): Promise<number> {
  const unfinished = (await models.deliveries
    .find({ status: { $in: ['pending', 'delivering'] }, due_tracked: { $ne: true } }, { attempts: 0 })
    .lean()
    .exec()) as DeliveryDocument[];
  if (!unfinished.length) return 0;
  const duplicates = await insertIgnoringDuplicates(models.due, unfinished.map(dueOf));
  return unfinished.length - duplicates.size;
}
