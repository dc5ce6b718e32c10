/**
 * ISO 4217 active currency codes with their minor-unit exponent (number of decimal places).
 * Source: the ISO 4217 list (table A.1). Exponent 0 means amounts are whole units (JPY, KRW, VND…).
 * Kept as an explicit table rather than derived from Intl because CLDR display digits differ
 * from ISO minor units for some currencies (e.g. HUF, TWD, IDR) and money must follow ISO.
 */
const ZERO_DECIMAL = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF';
const THREE_DECIMAL = 'BHD IQD JOD KWD LYD OMR TND';
const FOUR_DECIMAL = 'CLF UYW';
const TWO_DECIMAL =
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN ' +
  'BZD CAD CDF CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP ' +
  'GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP ' +
  'LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR ' +
  'NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN ' +
  'SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG YER ZAR ' +
  'ZMW ZWG';

function table(): ReadonlyMap<string, number> {
  const entries: [string, number][] = [];
  const add = (codes: string, exponent: number) => {
    for (const code of codes.split(/\s+/).filter(Boolean)) entries.push([code, exponent]);
  };
  add(ZERO_DECIMAL, 0);
  add(TWO_DECIMAL, 2);
  add(THREE_DECIMAL, 3);
  add(FOUR_DECIMAL, 4);
  return new Map(entries);
}

export const CURRENCY_EXPONENTS: ReadonlyMap<string, number> = table();

export type CurrencyCode = string & { readonly __brand?: 'CurrencyCode' };

export function isCurrencyCode(value: unknown): value is CurrencyCode {
  return typeof value === 'string' && CURRENCY_EXPONENTS.has(value);
}

/** Upper-cases and checks a currency code; returns undefined for anything not in ISO 4217. */
export function normaliseCurrency(value: unknown): CurrencyCode | undefined {
  if (typeof value !== 'string') return undefined;
  const code = value.trim().toUpperCase();
  return CURRENCY_EXPONENTS.has(code) ? code : undefined;
}

/** Number of decimal places of the currency's minor unit (0 for whole-unit currencies). */
export function minorUnitExponent(currency: string): number {
  const exponent = CURRENCY_EXPONENTS.get(currency);
  if (exponent === undefined) throw new RangeError(`Unknown currency ${currency}`);
  return exponent;
}

export function isWholeUnitCurrency(currency: string): boolean {
  return minorUnitExponent(currency) === 0;
}
