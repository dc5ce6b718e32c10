/**
 * How well a bank account name matches the legal name on a KYC submission, as a score in [0, 1].
 *
 * Choices:
 *  - Normalisation: NFKD with combining marks removed (é → e), lower case; apostrophes are dropped inside a
 *    word (O'Brien → obrien); every other non-letter/digit separates words.
 *  - Dropped words: honorifics banks print on account names (mr, mrs, ms, miss, mx, dr, prof, chief,
 *    alhaji, alhaja, alh, hajia, engr, barr, rev), legal-form suffixes (ltd, limited, plc, llc, inc,
 *    incorporated, co, company, corp, corporation, pty, cc) and "the"/"and". Trade words such as
 *    "enterprises", "ventures", "global", "services" are KEPT: they are what tells two businesses apart
 *    ("Acme Ventures" is not "Acme Enterprises").
 *  - Comparison: order-insensitive. Each word of the shorter name is paired with a distinct word of the
 *    longer one (best pairs first) by edit similarity (1 − Damerau–Levenshtein distance / length; a swap
 *    of neighbouring letters is one edit); pairs under 0.8 count as 0, an initial
 *    ("J") pairs with a word it starts with at 0.85, and a word split in two on one side ("Oluwa Seun")
 *    is joined before pairing. The score is the mean over the shorter name's words, so one missing
 *    middle name costs nothing; every further unpaired word multiplies it by 0.8, and a single word
 *    against a longer name is halved (a first name alone identifies nobody).
 *  - Not Jaro–Winkler: its bonus for a shared prefix is wrong for names built on common stems (Yoruba
 *    Ade-/Olu-/Oluwa-, Igbo Chi-/Nnam-): "Adebayo" and "Adeyemi" score 0.82 there, 0.43 here.
 *  - Strict on purpose: a false match auto-approves someone else's account, a missed one only waits for a
 *    reviewer. So a typo in a 4-letter name ("Jhon") already goes to manual review.
 */

/**
 * Auto-approval needs at least this score: two-word names pass with one exact word and a one-edit typo in
 * a word of 5+ letters (≥ 0.9) or with a middle name missing; a different surname scores ≤ 0.5.
 */
export const NAME_MATCH_THRESHOLD = 0.85;

const MIN_TOKEN_SIMILARITY = 0.8;
const INITIAL_SIMILARITY = 0.85;
const EXTRA_TOKEN_FACTOR = 0.8;
const SINGLE_TOKEN_FACTOR = 0.5;
/** Inputs are cut to this many characters and words: names are far shorter, and pairing is quadratic. */
const MAX_CHARS = 300;
const MAX_TOKENS = 12;
const MAX_WORD = 64;

const DROPPED_WORDS = new Set([
  'mr',
  'mrs',
  'ms',
  'miss',
  'mx',
  'dr',
  'prof',
  'chief',
  'alhaji',
  'alhaja',
  'alh',
  'hajia',
  'engr',
  'barr',
  'rev',
  'ltd',
  'limited',
  'plc',
  'llc',
  'inc',
  'incorporated',
  'co',
  'company',
  'corp',
  'corporation',
  'pty',
  'cc',
  'the',
  'and',
]);

const APOSTROPHES = new Set(["'", '’', 'ʼ', '`', '´']);

/** The comparable words of a name, in order, without duplicates. */
export function nameTokens(name: string): string[] {
  const text = name.slice(0, MAX_CHARS).normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  const words: string[] = [];
  let word = '';
  for (const ch of text) {
    if (APOSTROPHES.has(ch)) continue;
    if (/[\p{L}\p{N}]/u.test(ch)) {
      word += ch;
    } else if (word) {
      words.push(word);
      word = '';
    }
  }
  if (word) words.push(word);
  const kept = words.filter((w) => !DROPPED_WORDS.has(w));
  return [...new Set(kept)].slice(0, MAX_TOKENS);
}

/**
 * 1 − (optimal-string-alignment edit distance / longer length): a substitution, insertion, deletion or
 * swap of two neighbouring letters costs 1. Words are short (≤ 64 letters kept), so the table is tiny.
 */
export function editSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  const x = a.slice(0, MAX_WORD);
  const y = b.slice(0, MAX_WORD);
  if (!x || !y) return 0;
  let before = new Array<number>(y.length + 1).fill(0);
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let d = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) d = Math.min(d, before[j - 2] + 1);
      current.push(d);
    }
    before = previous;
    previous = current;
  }
  return 1 - previous[y.length] / Math.max(x.length, y.length);
}

function tokenSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  if ((a.length === 1 && b.startsWith(a)) || (b.length === 1 && a.startsWith(b))) return INITIAL_SIMILARITY;
  const s = editSimilarity(a, b);
  return s >= MIN_TOKEN_SIMILARITY ? s : 0;
}

/** Joins adjacent words of `tokens` whose concatenation is a word of `other` ("oluwa seun" → "oluwaseun"). */
function joinSplitWords(tokens: string[], other: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const joined = i + 1 < tokens.length ? tokens[i] + tokens[i + 1] : undefined;
    if (joined && !other.includes(tokens[i]) && other.includes(joined)) {
      out.push(joined);
      i++;
    } else {
      out.push(tokens[i]);
    }
  }
  return out;
}

/** Similarity in [0, 1] of a legal name and a bank account name; 0 when either has no comparable word. */
export function nameMatchScore(a: string, b: string): number {
  let ta = nameTokens(a);
  let tb = nameTokens(b);
  ta = joinSplitWords(ta, tb);
  tb = joinSplitWords(tb, ta);
  if (ta.length === 0 || tb.length === 0) return 0;
  const [short, long] = ta.length <= tb.length ? [ta, tb] : [tb, ta];

  const pairs: { i: number; j: number; s: number }[] = [];
  short.forEach((x, i) => long.forEach((y, j) => pairs.push({ i, j, s: tokenSimilarity(x, y) })));
  pairs.sort((p, q) => q.s - p.s);
  const usedShort = new Set<number>();
  const usedLong = new Set<number>();
  let total = 0;
  for (const p of pairs) {
    if (usedShort.has(p.i) || usedLong.has(p.j)) continue;
    usedShort.add(p.i);
    usedLong.add(p.j);
    total += p.s;
  }
  let score = total / short.length;
  const unpaired = long.length - short.length;
  if (short.length === 1 && unpaired > 0) score *= SINGLE_TOKEN_FACTOR;
  else if (unpaired > 1) score *= EXTRA_TOKEN_FACTOR ** (unpaired - 1);
  return Math.min(1, Math.max(0, score));
}
