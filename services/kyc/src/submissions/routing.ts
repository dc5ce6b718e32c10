import { normaliseCurrency, PlatformError } from '@ppay/kernel';

/**
 * Which KYC route a country takes and which currency its payouts settle in (spec 4.9).
 *
 * Choices where the spec is silent:
 *  - Connected route: `preferred_currency` is "optional; derived from country" (spec 4.9), so an explicit
 *    preference (one of USD/EUR/GBP/CAD/AUD, any case; anything else is a 400) wins, and the country only
 *    supplies the default: US → USD, GB → GBP, CA → CAD, AU → AUD, the 27 EU member states → EUR (members
 *    outside the euro area too, as the spec says "EU countries give EUR"), every other country → USD.
 *    Silently ignoring a partner's explicit preference would be the one wrong answer.
 *  - Gateway region: EU for the EEA (EU + IS, LI, NO), GB and CH — the European gateway entity serves
 *    them; US for everyone else.
 */

export const IN_HOUSE_COUNTRIES = ['NG', 'GH', 'ZA', 'KE'] as const;
export type InHouseCountry = (typeof IN_HOUSE_COUNTRIES)[number];
export type KycRoute = 'in_house' | 'connected_account';

const BANK_CURRENCIES: Readonly<Record<InHouseCountry, string>> = { NG: 'NGN', GH: 'GHS', KE: 'KES', ZA: 'ZAR' };

/** Currencies of the payout banks directory, one per in-house country. */
export const IN_HOUSE_CURRENCIES: readonly string[] = Object.values(BANK_CURRENCIES).sort();

export const CONNECTED_CURRENCIES = ['USD', 'EUR', 'GBP', 'CAD', 'AUD'] as const;
export type ConnectedCurrency = (typeof CONNECTED_CURRENCIES)[number];

/** The 27 EU member states (2026), listed rather than derived so a change is a visible diff. */
export const EU_MEMBER_STATES: readonly string[] = [
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
];

/** EEA members outside the EU, plus GB and CH: served by the EU gateway region with the EU states. */
const OTHER_EU_REGION_COUNTRIES: readonly string[] = ['IS', 'LI', 'NO', 'GB', 'CH'];

const HOME_CURRENCIES: ReadonlyMap<string, ConnectedCurrency> = new Map<string, ConnectedCurrency>([
  ['US', 'USD'],
  ['GB', 'GBP'],
  ['CA', 'CAD'],
  ['AU', 'AUD'],
  ...EU_MEMBER_STATES.map((c): [string, ConnectedCurrency] => [c, 'EUR']),
]);

export function isInHouseCountry(country: string): country is InHouseCountry {
  return (IN_HOUSE_COUNTRIES as readonly string[]).includes(country);
}

/** NG, GH, ZA and KE are reviewed in house; every other country onboards through a connected account. */
export function kycRouteFor(country: string): KycRoute {
  return isInHouseCountry(country) ? 'in_house' : 'connected_account';
}

/** The settlement currency of a payout bank in an in-house country; undefined for any other country. */
export function settlementCurrencyForBankCountry(country: string): string | undefined {
  return isInHouseCountry(country) ? BANK_CURRENCIES[country] : undefined;
}

/**
 * Settlement currency of a connected account (spec 4.9). `preferred` is the partner's raw
 * `preferred_currency` (any case); a value outside USD/EUR/GBP/CAD/AUD is a 400.
 */
export function connectedSettlementCurrency(country: string, preferred?: unknown): ConnectedCurrency {
  let wanted: ConnectedCurrency | undefined;
  if (preferred !== undefined && preferred !== null && preferred !== '') {
    const code = normaliseCurrency(preferred);
    wanted = CONNECTED_CURRENCIES.find((c) => c === code);
    if (!wanted) {
      throw new PlatformError(
        'VALIDATION_FAILED',
        `preferred_currency must be one of ${[...CONNECTED_CURRENCIES].sort().join(', ')}`,
        { param: 'preferred_currency' },
      );
    }
  }
  return wanted ?? HOME_CURRENCIES.get(country) ?? 'USD';
}

export function gatewayRegionFor(country: string): 'EU' | 'US' {
  return EU_MEMBER_STATES.includes(country) || OTHER_EU_REGION_COUNTRIES.includes(country) ? 'EU' : 'US';
}
