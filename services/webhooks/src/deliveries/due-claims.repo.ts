import { roomPicker } from './claim-room';
import { claimToken } from './claim-token';
import type { DeliveryRecord } from './delivery';
import {
  decodeAttempt,
  FINAL,
  type DeliveryDocument,
  type DeliveryModel,
  type DueModel,
  type DueDocument,
} from './delivery-documents.repo';
import type { ClaimedDelivery, ClaimOptions } from './ports';

/**
 * Claims of due work in `webhook_due` (see delivery-documents.repo.ts): conditional updates of due
 * entries with a lease, so of replicas racing for an entry only one gets it. A claim counts the
 * attempt before anything is sent, and checks the log where the entry may be stale (a crashed worker's
 * claim taken over, an entry rebuilt by a repeat).
 */
export class MongoDueClaims {
  constructor(
    private readonly model: DeliveryModel,
    private readonly due: DueModel,
  ) {}

  async claim(o: ClaimOptions): Promise<ClaimedDelivery[]> {
    const full = [...o.keyRoom].filter(([, room]) => room <= 0).map(([key]) => key);
    const fullMerchants = [...o.merchantRoom].filter(([, room]) => room <= 0).map(([merchant]) => merchant);
    // Pending and due, or delivering with an expired lease: both have next_attempt_at <= now.
    const candidates = (await this.due
      .find({
        next_attempt_at: { $lte: o.now },
        ...(full.length ? { key_id: { $nin: full } } : {}),
        ...(fullMerchants.length ? { merchant_id: { $nin: fullMerchants } } : {}),
      })
      .sort({ next_attempt_at: 1 })
      .limit(o.limit * 4)
      .lean()
      .exec()) as DueDocument[];
    const picked = candidates.filter(roomPicker(o));
    if (!picked.length) return [];
    const token = claimToken(o.owner, o.leaseUntil);
    // Conditional on still being due: of two replicas racing for an entry, only one matches.
    const res = await this.due
      .updateMany(
        { _id: { $in: picked.map((c) => c._id) }, next_attempt_at: { $lte: o.now } },
        {
          $set: { status: 'delivering', claim_token: token, claimed_at: o.now, next_attempt_at: o.leaseUntil },
          $inc: { attempt_count: 1, round_attempts: 1 },
        },
      )
      .exec();
    let mine = picked;
    if (res.modifiedCount !== picked.length) {
      // Another replica took some: ask which are ours (the rare case costs one more read).
      const ours = (await this.due.find({ claim_token: token }, { _id: 1 }).lean().exec()) as { _id: string }[];
      const ids = new Set(ours.map((d) => d._id));
      mine = picked.filter((c) => ids.has(c._id));
    }
    const out: ClaimedDelivery[] = [];
    for (const was of mine) {
      const taken = await this.claimed(was, token, o);
      if (taken) out.push(taken);
    }
    return out;
  }

  /**
   * Claims one delivery by id if it is due (a retry whose time came, see DeliveryWorker): a
   * conditional update of its entry alone, no query over the due work. Null when it is not due or
   * another replica has it.
   */
  async claimOne(
    deliveryId: string,
    o: Pick<ClaimOptions, 'now' | 'owner' | 'leaseUntil'>,
  ): Promise<ClaimedDelivery | null> {
    const token = claimToken(o.owner, o.leaseUntil);
    const was = (await this.due
      .findOneAndUpdate(
        { _id: deliveryId, next_attempt_at: { $lte: o.now } },
        {
          $set: { status: 'delivering', claim_token: token, claimed_at: o.now, next_attempt_at: o.leaseUntil },
          $inc: { attempt_count: 1, round_attempts: 1 },
        },
        { new: false },
      )
      .lean()
      .exec()) as DueDocument | null;
    return was ? this.claimed(was, token, o) : null;
  }

  /** A due entry just claimed (`was`: as it was before): the delivery to send, or null when there is none. */
  private async claimed(
    was: DueDocument,
    token: string,
    o: Pick<ClaimOptions, 'now' | 'leaseUntil'>,
  ): Promise<ClaimedDelivery | null> {
    const delivery: DeliveryRecord = {
      delivery_id: was._id,
      event_id: was.event_id,
      key_id: was.key_id,
      merchant_id: was.merchant_id,
      about_merchant_id: was.about_merchant_id ?? null,
      mode: was.mode,
      event_type: was.event_type,
      status: 'delivering',
      attempt_count: was.attempt_count + 1,
      round_attempts: was.round_attempts + 1,
      next_attempt_at: o.leaseUntil,
      claim_token: token,
      claimed_at: o.now,
      attempts: [],
      last_error_class: null,
      created_at: was.created_at,
      updated_at: o.now,
    };
    if (was.status === 'delivering') return this.takeOver(was, delivery, token);
    if (was.rebuilt) return this.checkRebuilt(was, delivery, token);
    return { delivery, claim_token: token, interrupted: null };
  }

  /**
   * A due entry rebuilt from a read of the log (see insertMany) that may have been stale: a delivery
   * finished since is closed without sending; one that made attempts since continues their numbers.
   */
  private async checkRebuilt(
    was: DueDocument,
    delivery: DeliveryRecord,
    token: string,
  ): Promise<ClaimedDelivery | null> {
    const log = (await this.model.findById(was._id, { status: 1, attempt_count: 1 }).lean().exec()) as Pick<
      DeliveryDocument,
      'status' | 'attempt_count'
    > | null;
    if (!log || FINAL.includes(log.status)) {
      await this.due.deleteOne({ _id: was._id, claim_token: token }).exec();
      return null;
    }
    if (log.attempt_count <= was.attempt_count) return { delivery, claim_token: token, interrupted: null };
    const attempt_count = log.attempt_count + 1;
    await this.due.updateOne({ _id: was._id, claim_token: token }, { $set: { attempt_count } }).exec();
    return { delivery: { ...delivery, attempt_count }, claim_token: token, interrupted: null };
  }

  /**
   * An expired claim: its worker died. If it died after writing the attempt to the log, the attempt
   * was not interrupted: a finished delivery is closed without sending, a retry goes ahead normally.
   */
  private async takeOver(was: DueDocument, delivery: DeliveryRecord, token: string): Promise<ClaimedDelivery | null> {
    const log = (await this.model.findById(was._id, { status: 1, attempts: 1 }).lean().exec()) as Pick<
      DeliveryDocument,
      'status' | 'attempts'
    > | null;
    const recorded = log?.attempts?.some((a) => decodeAttempt(a).number === was.attempt_count) ?? false;
    if (!recorded)
      return { delivery, claim_token: token, interrupted: { started_at: was.claimed_at ?? was.created_at } };
    if (log && FINAL.includes(log.status)) {
      await this.due.deleteOne({ _id: was._id, claim_token: token }).exec();
      return null;
    }
    return { delivery, claim_token: token, interrupted: null };
  }
}
