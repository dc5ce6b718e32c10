import { Type } from '@sinclair/typebox';

/** fx-pricing-specific settings; the shared ones come from the kernel's baseServiceConfig. */
export const fxPricingConfig = Type.Object({
  /** Rates for live callers: the bundled table or the live feed. Sandbox callers always get the bundled table. */
  RATE_SOURCE: Type.Union([Type.Literal('bundled'), Type.Literal('live')], { default: 'bundled' }),
  /** Replaces the table compiled into the service (src/data/rates-2026-11-01.json) with another dated file. */
  BUNDLED_RATES_FILE: Type.String({ default: '' }),
  /** Live feed URL answering {base, date|timestamp, rates}; required when RATE_SOURCE=live. */
  LIVE_RATES_URL: Type.String({ default: '' }),
  /** Sent as `Authorization: Bearer <key>` when set. */
  LIVE_RATES_API_KEY: Type.String({ default: '' }),
  RATES_TTL_MS: Type.Integer({ default: 60_000, minimum: 1_000 }),
  LIVE_RATES_TIMEOUT_MS: Type.Integer({ default: 3_000, minimum: 100 }),
  /** How long the last live table may be used while the feed is failing. */
  LIVE_RATES_MAX_STALE_MS: Type.Integer({ default: 3_600_000, minimum: 0 }),
  /** FX markup in percent applied to every cross-currency rate ("1.5" = 1.5 %). */
  FX_SURCHARGE_PERCENT: Type.String({ default: '0', pattern: '^\\d{1,2}(\\.\\d{1,4})?$' }),
  /** JSON seed of products and price rules, upserted at boot. */
  PRODUCTS_SEED_FILE: Type.String({ default: '' }),
  /** Optional static IPv4 CIDR → country table for the geolocation step of detection. */
  GEOIP_FILE: Type.String({ default: '' }),
});
