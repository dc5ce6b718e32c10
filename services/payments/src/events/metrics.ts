import { Counter, type Registry } from 'prom-client';

/** Wallet ledger metrics, recorded by the ledger consumer (payment outcomes → wallet entries). */
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
  };
}
