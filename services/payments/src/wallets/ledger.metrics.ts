import { Counter, type Registry } from 'prom-client';
import type { LedgerEntry } from './ledger-entry';

/** Wallet ledger metrics, recorded by the ledger consumer and the reconciler. */
export function ledgerMetrics(registry: Registry) {
  return {
    entries: new Counter({
      name: 'ppay_ledger_entries_total',
      help: 'Wallet ledger entries appended, by kind (credit, debit), currency and reason',
      labelNames: ['kind', 'currency', 'reason'],
      registers: [registry],
    }),
    amount: new Counter({
      name: 'ppay_ledger_amount_minor_units_total',
      help: 'Sum of ledger entry amounts in the currency minor unit, by kind and currency',
      labelNames: ['kind', 'currency'],
      registers: [registry],
    }),
    duplicates: new Counter({
      name: 'ppay_ledger_duplicate_entries_total',
      help: 'Ledger entries refused by their idempotency key (an event delivered more than once)',
      labelNames: ['reason'],
      registers: [registry],
    }),
    repairs: new Counter({
      name: 'ppay_ledger_repairs_total',
      help: 'Successful payments the ledger had not credited, credited by the reconciler (alerted on)',
      labelNames: ['source'],
      registers: [registry],
    }),
  };
}

export type LedgerMetrics = ReturnType<typeof ledgerMetrics>;

export function countLedgerWrites(
  metrics: LedgerMetrics,
  result: { inserted: LedgerEntry[]; duplicates: number },
  duplicateReason: string,
): void {
  for (const e of result.inserted) {
    metrics.entries.inc({ kind: e.kind, currency: e.amount.currency, reason: e.reason });
    metrics.amount.inc({ kind: e.kind, currency: e.amount.currency }, e.amount.amount);
  }
  if (result.duplicates > 0) metrics.duplicates.inc({ reason: duplicateReason }, result.duplicates);
}
