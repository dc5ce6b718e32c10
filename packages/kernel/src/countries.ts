const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

// User-assigned, grouping and exceptionally reserved codes ICU knows by name but which are not
// ISO 3166-1 countries (UK is GB). XK, Kosovo, is kept.
const NOT_COUNTRIES = /^(AA|Q[M-Z]|X[A-JL-Z]|ZZ|EU|EZ|UN|UK|FX|AC|CP|DG|EA|IC|TA)$/;

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

const ALIASES: Record<string, string> = {
  uk: 'GB',
  'great britain': 'GB',
  england: 'GB',
  britain: 'GB',
  usa: 'US',
  'u.s.a.': 'US',
  'u.s.': 'US',
  america: 'US',
  'united states of america': 'US',
  uae: 'AE',
  'ivory coast': 'CI',
  "cote d'ivoire": 'CI',
  'côte d’ivoire': 'CI',
  drc: 'CD',
  'dr congo': 'CD',
  'south korea': 'KR',
  'korea, republic of': 'KR',
  russia: 'RU',
  'czech republic': 'CZ',
  'the netherlands': 'NL',
  holland: 'NL',
  'the gambia': 'GM',
  gambia: 'GM',
  swaziland: 'SZ',
  turkey: 'TR',
  'viet nam': 'VN',
  tanzania: 'TZ',
  'united republic of tanzania': 'TZ',
};

let namesToCodes: Map<string, string> | undefined;

function countryNameIndex(): Map<string, string> {
  if (!namesToCodes) {
    namesToCodes = new Map(Object.entries(ALIASES));
    for (let a = 65; a <= 90; a++) {
      for (let b = 65; b <= 90; b++) {
        const code = String.fromCharCode(a, b);
        const name = isCountryCode(code) ? regionNames.of(code)!.toLowerCase() : undefined;
        // First code wins, so a historic or reserved code never shadows the current one.
        if (name && !namesToCodes.has(name)) namesToCodes.set(name, code);
      }
    }
  }
  return namesToCodes;
}

/**
 * Normalises what partners send as a country — an ISO 3166-1 alpha-2 code in any case, or a common
 * English name ("Nigeria", "united kingdom", "USA") — to the alpha-2 code; undefined when unknown.
 */
export function normaliseCountry(input: unknown): string | undefined {
  if (typeof input !== 'string') return undefined;
  const text = input.trim();
  if (text.length === 2 && isCountryCode(text.toUpperCase())) return text.toUpperCase();
  return countryNameIndex().get(text.toLowerCase().replace(/\s+/g, ' '));
}
