import { PlatformError, TtlCache } from '@ppay/kernel';
import { crossRate, parseRateTable, type RateQuote, type RateSource, type RateTable } from './rates';

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
