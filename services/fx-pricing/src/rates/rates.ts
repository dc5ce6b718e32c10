import { normaliseCurrency, parseDecimal, PlatformError, type Decimal } from '@ppay/kernel';
import { decimalString, divideToSignificant } from './decimals';

/** One quote: 1 unit of `from` = `rate` units of `to` (major units), as an exact decimal string. */
export interface RateQuote {
  rate: string;
  /** `bundled:<table date>` or `live:<host>`. */
  source: string;
  /** As-of of the underlying table: `YYYY-MM-DD` (bundled) or an ISO timestamp (live). */
  as_of: string;
}

/** Where exchange rates come from. Implementations throw UNSUPPORTED_CURRENCY for a pair they cannot price. */
export interface RateSource {
  readonly id: string;
  quote(from: string, to: string): Promise<RateQuote>;
}

/** Rates of every currency against one base: units of the currency per 1 unit of `base`. */
export interface RateTable {
  base: string;
  as_of: string;
  rates: ReadonlyMap<string, Decimal>;
}

export function unsupportedPair(from: string, to: string, param?: string): PlatformError {
  return new PlatformError('UNSUPPORTED_CURRENCY', `Unable to convert from ${from} to ${to}`, { param });
}

// Cross rates per table: a table never changes once loaded (a refresh makes a new one), and the exact
// division is most of a conversion's cost (docs/performance.md, charge-preview).
const crossRates = new WeakMap<RateTable, Map<string, string>>();

/** Exact cross rate from a table: rate(from→to) = table[to] / table[from], to 10 significant digits. */
export function crossRate(table: RateTable, from: string, to: string): string {
  let cache = crossRates.get(table);
  if (!cache) crossRates.set(table, (cache = new Map()));
  const key = `${from}>${to}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const f = table.rates.get(from);
  const t = table.rates.get(to);
  if (!f || !t) throw unsupportedPair(from, to);
  const rate = decimalString(divideToSignificant(t, f));
  cache.set(key, rate);
  return rate;
}

/** Parses `{base, date|timestamp, rates: {CODE: number|string}}` into a table (the bundled file, the live feed). */
export function parseRateTable(json: unknown, what: string): RateTable {
  const body = json as { base?: unknown; date?: unknown; timestamp?: unknown; rates?: unknown } | null;
  const base = normaliseCurrency(body?.base);
  if (!base || typeof body?.rates !== 'object' || body.rates === null) {
    throw new Error(`${what}: expected {base, rates} with an ISO 4217 base`);
  }
  let asOf: string;
  if (typeof body.date === 'string' && /^\d{4}-\d{2}-\d{2}/.test(body.date)) asOf = body.date;
  else if (typeof body.timestamp === 'number') asOf = new Date(body.timestamp * 1000).toISOString();
  else throw new Error(`${what}: expected a date (YYYY-MM-DD) or a unix timestamp`);
  const rates = new Map<string, Decimal>([[base, { units: 1n, scale: 0 }]]);
  for (const [code, value] of Object.entries(body.rates as Record<string, unknown>)) {
    const currency = normaliseCurrency(code);
    if (!currency || (typeof value !== 'string' && typeof value !== 'number')) continue; // unknown codes are ignored
    let rate: Decimal;
    try {
      rate = parseDecimal(value);
    } catch {
      continue;
    }
    if (rate.units > 0n) rates.set(currency, rate);
  }
  return { base, as_of: asOf, rates };
}

/** The dated table shipped in the repo (services/fx-pricing/data), used in sandbox and offline. */
export class BundledRateSource implements RateSource {
  readonly id: string;
  constructor(readonly table: RateTable) {
    this.id = `bundled:${table.as_of}`;
  }

  currencies(): string[] {
    return [...this.table.rates.keys()].sort();
  }

  async quote(from: string, to: string): Promise<RateQuote> {
    return { rate: crossRate(this.table, from, to), source: this.id, as_of: this.table.as_of };
  }
}
