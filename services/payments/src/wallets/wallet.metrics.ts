import { Counter, Gauge, type Registry } from 'prom-client';

/** Wallet reconciliation: wallets whose totals disagree with their ledger entries (alerted on when > 0). */
export function walletMetrics(registry: Registry) {
  return {
    drift: new Gauge({
      name: 'ppay_wallet_drift',
      help: 'Wallets whose totals or reservations disagreed with their ledger entries in the last reconciliation pass',
      registers: [registry],
    }),
    checked: new Counter({
      name: 'ppay_wallet_reconciled_total',
      help: 'Wallets checked by the wallet reconciler',
      registers: [registry],
    }),
  };
}
