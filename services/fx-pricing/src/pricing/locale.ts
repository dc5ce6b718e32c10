import { processorGroupOf, countryName, formatMoney, type Money } from '@ppay/kernel';

/**
 * Country ↔ currency. A currency used by exactly one country in this table is unambiguous
 * (NGN → NG); USD, EUR, XAF, XOF (and ZAR, used in the Common Monetary Area) need the country.
 * `ISSUER` is the documented default country of a currency when nothing else tells us: the seat of
 * its issuing central bank (USD → US, EUR → DE for the ECB, XAF → CM for the BEAC, XOF → SN for the BCEAO).
 */
const CURRENCY_COUNTRIES: Record<string, string[]> = {
  NGN: ['NG'],
  GHS: ['GH'],
  KES: ['KE'],
  ZAR: ['ZA', 'LS', 'NA', 'SZ'],
  TZS: ['TZ'],
  UGX: ['UG'],
  RWF: ['RW'],
  ZMW: ['ZM'],
  EGP: ['EG'],
  MAD: ['MA'],
  XAF: ['CM', 'GA', 'CG', 'TD', 'CF', 'GQ'],
  XOF: ['SN', 'CI', 'BJ', 'BF', 'ML', 'NE', 'TG', 'GW'],
  USD: ['US', 'EC', 'SV', 'PA', 'PR', 'ZW', 'TL', 'FM', 'MH', 'PW'],
  EUR: [
    'DE',
    'FR',
    'IT',
    'ES',
    'NL',
    'BE',
    'AT',
    'PT',
    'IE',
    'FI',
    'GR',
    'LU',
    'SK',
    'SI',
    'LT',
    'LV',
    'EE',
    'CY',
    'MT',
    'HR',
  ],
  GBP: ['GB'],
  CHF: ['CH', 'LI'],
  CAD: ['CA'],
  AUD: ['AU'],
  NZD: ['NZ'],
  JPY: ['JP'],
  KRW: ['KR'],
  VND: ['VN'],
  CNY: ['CN'],
  INR: ['IN'],
  AED: ['AE'],
  BRL: ['BR'],
  MXN: ['MX'],
  KWD: ['KW'],
};

/** The currency's issuer seat, used as the default country (first entry of each list above). */
export function defaultCountryOf(currency: string): string | undefined {
  return CURRENCY_COUNTRIES[currency]?.[0];
}

const COUNTRY_CURRENCY = new Map<string, string>();
for (const [currency, countries] of Object.entries(CURRENCY_COUNTRIES)) {
  for (const country of countries) if (!COUNTRY_CURRENCY.has(country)) COUNTRY_CURRENCY.set(country, currency);
}

/** The single country of an unambiguous currency (NGN → NG); undefined for USD, EUR, XAF, XOF, ZAR… */
export function countryOfCurrency(currency: string): string | undefined {
  const countries = CURRENCY_COUNTRIES[currency];
  return countries?.length === 1 ? countries[0] : undefined;
}

/** The currency a country prices in (NG → NGN, FR → EUR, SN → XOF); undefined when not in the table. */
export function currencyOfCountry(country: string): string | undefined {
  return COUNTRY_CURRENCY.get(country);
}

export function isAmbiguousCurrency(currency: string): boolean {
  return (CURRENCY_COUNTRIES[currency]?.length ?? 0) > 1;
}

/** Spec 4.1 routing table → the payment methods the customer can use (naira: card, bank transfer, USSD). */
const METHODS = {
  naira: ['card', 'bank_transfer', 'ussd'],
  regional: ['card', 'mobile_money'],
  card: ['card'],
} as const;

export function isChargeableCurrency(currency: string): boolean {
  return processorGroupOf(currency) !== undefined;
}

export function paymentMethodsFor(currency: string): string[] {
  const group = processorGroupOf(currency);
  return group ? [...METHODS[group]] : [];
}

/**
 * Display locale: English with the customer's regional conventions (`en-NG` → ₦1,234.50,
 * `en-KE` → Ksh 1,234.50), or en-US when the country is unknown or ICU has no such locale.
 */
export function displayLocale(countryCode: string | undefined): string {
  if (!countryCode) return 'en-US';
  const candidate = `en-${countryCode}`;
  return Intl.NumberFormat.supportedLocalesOf([candidate]).length > 0 ? candidate : 'en-US';
}

/** An amount with how the customer sees it; the REST `{amount, currency, formatted}` is the gateway's. */
export interface FormattedMoney {
  money: Money;
  formatted: string;
}

export function formatted(value: Money, locale: string): FormattedMoney {
  return { money: value, formatted: formatMoney(value, locale) };
}

export function displayCountryName(code: string | undefined): string {
  return (code && countryName(code)) || 'Unknown';
}
