import { addMoney, type MinorUnits, type Mode, type Money } from '@ppay/kernel';
import type { WalletStore } from '../ports';
import type { LedgerEntryStore } from './ports';
import { newLedgerEntry, type LedgerEntry } from './ledger-entry';
import { emptyWallet, walletEffect, walletIdOf, walletOwnerOf, type WalletEffect, type WalletRecord } from './wallet';

/** In-memory ledger entries and wallets with the same conditional semantics as the Mongo ones. */

const clone = <T>(v: T): T => structuredClone(v);
/** A wallet total moved by minor units of its own currency (what the Mongo store's `$inc` does). */
const plus = (total: Money, delta: MinorUnits): Money => addMoney(total, { amount: delta, currency: total.currency });

/** A payment's credit of `amount` NGN to merchant 1000 (sandbox), entry id `id`, with the test's changes. */
export function testCredit(
  id: string,
  amount: number,
  changes: Partial<LedgerEntry> = {},
  now = new Date(),
): LedgerEntry {
  const draft = {
    idempotency_key: id,
    merchant_id: 1000,
    mode: 'sandbox' as const,
    kind: 'credit' as const,
    reason: 'payment' as const,
    amount: { amount, currency: 'NGN' },
    charge_id: `ch_${id}`,
    event_id: `evt_${id}`,
  };
  return { ...newLedgerEntry(draft, now), ...changes };
}

/** Thrown by a store armed with `crashAfter` once the named write has happened: a process dying there. */
export class SimulatedCrash extends Error {}

export class MemoryLedgerEntries implements LedgerEntryStore {
  readonly docs = new Map<string, LedgerEntry & { wallet_seq: number | null; wallet_id: string | null }>();
  /** Arms a one-shot crash right after the next write of this kind. */
  crashAfter: 'insert' | 'markApplied' | null = null;

  async insert(entry: LedgerEntry) {
    if (this.docs.has(entry.idempotency_key)) return false;
    this.docs.set(entry.idempotency_key, { ...clone(entry), wallet_seq: null, wallet_id: null });
    this.maybeCrash('insert');
    return true;
  }
  async get(id: string) {
    const d = this.docs.get(id);
    return d ? clone(d) : null;
  }
  async appliedSeq(id: string) {
    return this.docs.get(id)?.wallet_seq ?? null;
  }
  async markApplied(id: string, walletId: string, seq: number) {
    const d = this.docs.get(id);
    if (!d) return;
    if (d.wallet_seq !== null && d.wallet_seq !== seq)
      throw new Error(`entry ${id} marked at ${d.wallet_seq} and ${seq}`);
    d.wallet_seq = seq;
    d.wallet_id = walletId;
    this.maybeCrash('markApplied');
  }
  async unapplied(limit: number) {
    return [...this.docs.values()]
      .filter((d) => d.wallet_seq === null)
      .slice(0, limit)
      .map(clone);
  }
  async hasEntriesFor(chargeId: string) {
    return [...this.docs.values()].some((e) => e.charge_id === chargeId);
  }
  async entriesForCharge(chargeId: string) {
    return [...this.docs.values()].filter((e) => e.charge_id === chargeId).map(clone);
  }
  async appliedTotals(walletId: string) {
    const t = { total_credits: 0, total_debits: 0, transaction_count: 0 };
    for (const d of this.docs.values()) {
      if (d.wallet_id !== walletId || d.wallet_seq === null) continue;
      const e = walletEffect(d);
      t.total_credits += e.total_credits;
      t.total_debits += e.total_debits;
      t.transaction_count += e.transaction_count;
    }
    return t;
  }
  private maybeCrash(kind: 'insert' | 'markApplied') {
    if (this.crashAfter === kind) {
      this.crashAfter = null;
      throw new SimulatedCrash(`crash after ${kind}`);
    }
  }
}

export class MemoryWallets implements WalletStore {
  readonly docs = new Map<string, WalletRecord>();
  crashAfterApply = false;

  async get(id: string) {
    const w = this.docs.get(id);
    return w ? clone(w) : null;
  }
  async ensure(merchantId: number, mode: Mode, currency: string) {
    const id = walletIdOf(merchantId, mode, currency);
    if (!this.docs.has(id)) this.docs.set(id, emptyWallet(merchantId, mode, currency, new Date()));
    return clone(this.docs.get(id)!);
  }
  async listFor(merchantId: number, mode: Mode) {
    const owner = walletOwnerOf(merchantId, mode);
    return [...this.docs.values()].filter((w) => walletOwnerOf(w.merchant_id, w.mode) === owner).map(clone);
  }
  async page(afterId: string | null, limit: number) {
    return [...this.docs.values()]
      .filter((w) => afterId === null || w.wallet_id > afterId)
      .sort((a, b) => a.wallet_id.localeCompare(b.wallet_id))
      .slice(0, limit)
      .map(clone);
  }
  async applyAt(id: string, expectedSeq: number, entryId: string, effect: WalletEffect, now: Date) {
    const w = this.docs.get(id);
    if (!w || w.seq !== expectedSeq) return false;
    w.available = plus(w.available, effect.available);
    w.reserved = plus(w.reserved, effect.reserved);
    w.total_credits = plus(w.total_credits, effect.total_credits);
    w.total_debits = plus(w.total_debits, effect.total_debits);
    w.transaction_count += effect.transaction_count;
    if (effect.settles_reservation) delete w.reservations[effect.settles_reservation];
    w.seq++;
    w.last_entry_id = entryId;
    w.updated_at = now;
    if (this.crashAfterApply) {
      this.crashAfterApply = false;
      throw new SimulatedCrash('crash after wallet apply');
    }
    return true;
  }
  async reserve(id: string, key: string, amount: number) {
    const w = this.docs.get(id);
    if (w && key in w.reservations) return { outcome: 'exists' as const, amount: w.reservations[key]! };
    if (!w || w.available.amount < amount) return { outcome: 'insufficient' as const };
    w.available = plus(w.available, -amount);
    w.reserved = plus(w.reserved, amount);
    w.reservations[key] = amount;
    return { outcome: 'reserved' as const };
  }
  async release(id: string, key: string, amount: number) {
    const w = this.docs.get(id);
    if (!w || !(key in w.reservations)) return false;
    w.available = plus(w.available, amount);
    w.reserved = plus(w.reserved, -amount);
    delete w.reservations[key];
    return true;
  }
}
