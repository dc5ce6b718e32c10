const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

// User-assigned and grouping codes ICU knows by name but which are not countries (XK, Kosovo, is kept).
const NOT_COUNTRIES = /^(AA|Q[M-Z]|X[A-JL-Z]|ZZ|EU|EZ|UN)$/;

/** ISO 3166-1 alpha-2 check backed by ICU's region data (unknown codes echo back unchanged). */
export function isCountryCode(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    /^[A-Z]{2}$/.test(value) &&
    !NOT_COUNTRIES.test(value) &&
    regionNames.of(value) !== value
  );
}

export function countryName(code: string): string | undefined {
  return isCountryCode(code) ? regionNames.of(code) : undefined;
}
