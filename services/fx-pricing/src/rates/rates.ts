import { readFileSync } from 'node:fs';
import { divideAndRound, normaliseCurrency, parseDecimal, PlatformError, TtlCache, type Decimal } from '@ppay/kernel';

/** Significant digits of every quoted rate (cross rates and surcharged rates). */
export const RATE_SIGNIFICANT_DIGITS = 10;

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

/** Strips trailing fractional zeros: 1.5000 → 1.5, 10.00 → 10. */
export function normaliseDecimal(d: Decimal): Decimal {
  let { units, scale } = d;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return { units, scale };
}

export function decimalString(d: Decimal): string {
  const { units, scale } = normaliseDecimal(d);
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const int = digits.slice(0, digits.length - scale);
  const frac = scale > 0 ? '.' + digits.slice(digits.length - scale) : '';
  return (negative ? '-' : '') + int + frac;
}

export function multiplyDecimals(a: Decimal, b: Decimal): Decimal {
  return { units: a.units * b.units, scale: a.scale + b.scale };
}

/**
 * numerator / denominator (both positive) rounded half up to `significant` significant digits.
 * Exact BigInt arithmetic: the only rounding is this one.
 */
export function divideToSignificant(
  numerator: Decimal,
  denominator: Decimal,
  significant = RATE_SIGNIFICANT_DIGITS,
): Decimal {
  if (numerator.units <= 0n || denominator.units <= 0n) throw new RangeError('rates must be positive');
  // value = n / d where n, d are integers
  const n = numerator.units * 10n ** BigInt(denominator.scale);
  const d = denominator.units * 10n ** BigInt(numerator.scale);
  // shift k such that n·10^k / d has exactly `significant` integer digits
  let k = significant - 1 - (n.toString().length - d.toString().length);
  const lower = 10n ** BigInt(significant - 1);
  const upper = 10n ** BigInt(significant);
  for (;;) {
    const q = k >= 0 ? divideAndRound(n * 10n ** BigInt(k), d) : divideAndRound(n, d * 10n ** BigInt(-k));
    if (q >= upper) k -= 1;
    else if (q < lower) k += 1;
    else return normaliseDecimal(k >= 0 ? { units: q, scale: k } : { units: q * 10n ** BigInt(-k), scale: 0 });
  }
}

// Cross rates per table: a table never changes once loaded (a refresh makes a new one), and the exact
// division costs ~0.1 ms, which is most of a conversion.
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

/** Parses `{base, date|timestamp, rates: {CODE: number|string}}` into a table (shared by both sources). */
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

  static fromFile(path: string): BundledRateSource {
    return new BundledRateSource(parseRateTable(JSON.parse(readFileSync(path, 'utf8')), path));
  }

  currencies(): string[] {
    return [...this.table.rates.keys()].sort();
  }

  async quote(from: string, to: string): Promise<RateQuote> {
    return { rate: crossRate(this.table, from, to), source: this.id, as_of: this.table.as_of };
  }
}

export interface HttpRateSourceOptions {
  url: string;
  apiKey?: string;
  ttlMs: number;
  timeoutMs: number;
  /** How long a table may still be used when refreshing fails. */
  maxStaleMs: number;
  now?: () => number;
  fetchImpl?: typeof fetch;
}

/**
 * A live feed: GET `url` (with `Authorization: Bearer <apiKey>` when set) answering
 * `{"base": "USD", "date": "YYYY-MM-DD" | "timestamp": <unix seconds>, "rates": {"NGN": 1532.45, ...}}`
 * (the shape of Open Exchange Rates, Frankfurter and exchangerate.host). The table is cached for
 * `ttlMs`; when a refresh fails the last table is used for up to `maxStaleMs`, then calls fail with
 * SERVICE_UNAVAILABLE rather than price with an old rate.
 */
export class HttpRateSource implements RateSource {
  readonly id: string;
  private readonly cache: TtlCache<'table', RateTable>;
  private lastGood: { table: RateTable; fetchedAt: number } | undefined;
  private readonly now: () => number;
  fetches = 0;

  constructor(private readonly options: HttpRateSourceOptions) {
    this.id = `live:${new URL(options.url).host}`;
    this.now = options.now ?? Date.now;
    this.cache = new TtlCache(1, this.now);
  }

  async quote(from: string, to: string): Promise<RateQuote> {
    const table = await this.table();
    return { rate: crossRate(table, from, to), source: this.id, as_of: table.as_of };
  }

  async table(): Promise<RateTable> {
    try {
      return await this.cache.getOrLoad(
        'table',
        () => this.fetchTable(),
        () => this.options.ttlMs,
      );
    } catch (err) {
      const last = this.lastGood;
      if (last && this.now() - last.fetchedAt <= this.options.maxStaleMs) return last.table;
      throw new PlatformError('SERVICE_UNAVAILABLE', undefined, {
        detail: `Exchange rate feed ${this.id} is unavailable`,
        cause: err,
      });
    }
  }

  private async fetchTable(): Promise<RateTable> {
    this.fetches += 1;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    const res = await (this.options.fetchImpl ?? fetch)(this.options.url, {
      headers,
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    if (!res.ok) throw new Error(`rate feed answered HTTP ${res.status}`);
    const table = parseRateTable(await res.json(), this.id);
    this.lastGood = { table, fetchedAt: this.now() };
    return table;
  }
}
