import { Schema, type Connection, type Model } from 'mongoose';
import { type Mode, type Money } from '@ppay/kernel';
import { isDuplicateKeyError } from '@ppay/runtime';
import type { WalletStore } from '../ports';
import { emptyWallet, walletIdOf, walletOwnerOf, type WalletEffect, type WalletRecord } from './wallet';

type Totals = 'available' | 'reserved' | 'total_credits' | 'total_debits';

/**
 * The stored wallet keeps its totals as plain minor units of its `currency`: the conditional writes
 * `$inc` them and compare `available` with an amount. toRecord / toDocument map them to the record's Money.
 */
interface WalletDocument extends Omit<WalletRecord, 'wallet_id' | Totals>, Record<Totals, number> {
  _id: string;
  /** `merchant:mode`: all a merchant's wallets in one mode by one indexed field. */
  owner: string;
}

const walletSchema = new Schema<WalletDocument>(
  {
    _id: { type: String, required: true },
    owner: { type: String, required: true },
    merchant_id: { type: Number, required: true },
    mode: { type: String, required: true },
    currency: { type: String, required: true },
    available: { type: Number, required: true },
    reserved: { type: Number, required: true },
    total_credits: { type: Number, required: true },
    total_debits: { type: Number, required: true },
    transaction_count: { type: Number, required: true },
    seq: { type: Number, required: true },
    last_entry_id: { type: String, default: null },
    reservations: { type: Schema.Types.Mixed, default: {} },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'wallets', minimize: false },
);
walletSchema.index({ owner: 1 });

export type WalletModel = Model<WalletDocument>;

export function walletModel(conn: Connection): WalletModel {
  return conn.model<WalletDocument>('Wallet', walletSchema);
}

function toRecord(doc: WalletDocument): WalletRecord {
  const { _id, owner: _owner, available, reserved, total_credits, total_debits, ...rest } = doc;
  const inWallet = (amount: number): Money => ({ amount, currency: doc.currency });
  return {
    wallet_id: _id,
    ...rest,
    available: inWallet(available),
    reserved: inWallet(reserved),
    total_credits: inWallet(total_credits),
    total_debits: inWallet(total_debits),
    reservations: rest.reservations ?? {},
  };
}

function toDocument(wallet: WalletRecord): WalletDocument {
  const { wallet_id, available, reserved, total_credits, total_debits, ...rest } = wallet;
  return {
    _id: wallet_id,
    owner: walletOwnerOf(wallet.merchant_id, wallet.mode),
    ...rest,
    available: available.amount,
    reserved: reserved.amount,
    total_credits: total_credits.amount,
    total_debits: total_debits.amount,
  };
}

/**
 * Wallet documents. Every write is one conditional update on the wallet's id: entries on its `seq`,
 * reservations on `available` and on the reservation key being absent (set) or present (removed).
 */
export class MongoWalletStore implements WalletStore {
  constructor(readonly model: WalletModel) {}

  async get(walletId: string): Promise<WalletRecord | null> {
    const doc = await this.model.findById(walletId).lean().exec();
    return doc ? toRecord(doc as WalletDocument) : null;
  }

  async ensure(merchantId: number, mode: Mode, currency: string): Promise<WalletRecord> {
    try {
      await this.model.create(toDocument(emptyWallet(merchantId, mode, currency, new Date())));
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
    return (await this.get(walletIdOf(merchantId, mode, currency)))!;
  }

  async listFor(merchantId: number, mode: Mode): Promise<WalletRecord[]> {
    const docs = await this.model
      .find({ owner: walletOwnerOf(merchantId, mode) })
      .lean()
      .exec();
    return (docs as WalletDocument[]).map(toRecord);
  }

  async page(afterId: string | null, limit: number): Promise<WalletRecord[]> {
    const docs = await this.model
      .find(afterId === null ? {} : { _id: { $gt: afterId } })
      .sort({ _id: 1 })
      .limit(limit)
      .lean()
      .exec();
    return (docs as WalletDocument[]).map(toRecord);
  }

  async applyAt(
    walletId: string,
    expectedSeq: number,
    entryId: string,
    effect: WalletEffect,
    now: Date,
  ): Promise<boolean> {
    const update: Record<string, unknown> = {
      $inc: {
        available: effect.available,
        reserved: effect.reserved,
        total_credits: effect.total_credits,
        total_debits: effect.total_debits,
        transaction_count: effect.transaction_count,
        seq: 1,
      },
      $set: { last_entry_id: entryId, updated_at: now },
    };
    if (effect.settles_reservation) update.$unset = { [`reservations.${effect.settles_reservation}`]: '' };
    const res = await this.model.updateOne({ _id: walletId, seq: expectedSeq }, update).exec();
    return res.matchedCount === 1;
  }

  async reserve(walletId: string, key: string, amount: number, now: Date) {
    const field = `reservations.${key}`;
    const res = await this.model
      .updateOne(
        { _id: walletId, available: { $gte: amount }, [field]: { $exists: false } },
        { $inc: { available: -amount, reserved: amount }, $set: { [field]: amount, updated_at: now } },
      )
      .exec();
    if (res.matchedCount === 1) return { outcome: 'reserved' as const };
    const wallet = await this.get(walletId);
    const held = wallet?.reservations[key];
    if (held !== undefined) return { outcome: 'exists' as const, amount: held };
    return { outcome: 'insufficient' as const };
  }

  async release(walletId: string, key: string, amount: number, now: Date): Promise<boolean> {
    const field = `reservations.${key}`;
    const res = await this.model
      .updateOne(
        { _id: walletId, [field]: { $exists: true } },
        { $inc: { available: amount, reserved: -amount }, $unset: { [field]: '' }, $set: { updated_at: now } },
      )
      .exec();
    return res.matchedCount === 1;
  }
}
