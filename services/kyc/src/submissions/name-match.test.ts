import { editSimilarity, NAME_MATCH_THRESHOLD, nameMatchScore, nameTokens } from './name-match';

const passes = (a: string, b: string) => nameMatchScore(a, b) >= NAME_MATCH_THRESHOLD;

describe('name normalisation', () => {
  it('strips diacritics, case, punctuation, honorifics and legal suffixes', () => {
    expect(nameTokens('Mr. JOSÉ  Muñoz-Álvarez')).toEqual(['jose', 'munoz', 'alvarez']);
    expect(nameTokens("Dr Seán O'Brien")).toEqual(['sean', 'obrien']);
    expect(nameTokens('ALHAJI ABUBAKAR BELLO')).toEqual(['abubakar', 'bello']);
    expect(nameTokens('The Acme Trading Co. Ltd')).toEqual(['acme', 'trading']);
    expect(nameTokens('Smith & Sons Enterprises PLC')).toEqual(['smith', 'sons', 'enterprises']);
    expect(nameTokens('Ọlá Adébáyọ̀')).toEqual(['ola', 'adebayo']);
    expect(nameTokens('  ')).toEqual([]);
  });
});

describe('edit similarity', () => {
  it('counts substitutions, insertions, deletions and neighbour swaps as one edit each', () => {
    expect(editSimilarity('okafor', 'okafro')).toBeCloseTo(1 - 1 / 6, 10); // swap
    expect(editSimilarity('chinedu', 'chinedi')).toBeCloseTo(1 - 1 / 7, 10);
    expect(editSimilarity('adebayo', 'adebayoo')).toBeCloseTo(1 - 1 / 8, 10);
    expect(editSimilarity('kitten', 'sitting')).toBeCloseTo(1 - 3 / 7, 10);
    expect(editSimilarity('adebayo', 'adeyemi')).toBeCloseTo(1 - 4 / 7, 10);
    expect(editSimilarity('abc', 'abc')).toBe(1);
    expect(editSimilarity('abc', 'xyz')).toBe(0);
    expect(editSimilarity('', 'abc')).toBe(0);
  });
});

describe('nameMatchScore', () => {
  it('matches a bank name that drops the middle name and changes the order', () => {
    expect(nameMatchScore('ADEBAYO JOHN OLUWASEUN', 'John Adebayo')).toBe(1);
    expect(nameMatchScore('John Adebayo', 'ADEBAYO JOHN OLUWASEUN')).toBe(1);
    expect(passes('Chinedu Okafor', 'OKAFOR CHINEDU')).toBe(true);
  });

  it('scores different people low', () => {
    expect(nameMatchScore('Chinedu Okafor', 'Ngozi Eze')).toBe(0);
    expect(passes('John Adebayo', 'John Okonkwo')).toBe(false);
    expect(nameMatchScore('John Adebayo', 'John Okonkwo')).toBeLessThanOrEqual(0.5);
    // Shared stems are not a match: Ade-bayo / Ade-yemi, Oluwa-seun / Oluwa-tobi.
    expect(passes('Oluwaseun Adebayo', 'Oluwaseun Adeyemi')).toBe(false);
    expect(passes('Oluwaseun Adebayo', 'Oluwatobi Adebayo')).toBe(false);
    expect(passes('Tola Adebayo', 'Tolu Adebayo')).toBe(false);
  });

  it('ignores diacritics, case, honorifics and legal suffixes', () => {
    expect(nameMatchScore('José Muñoz', 'JOSE MUNOZ')).toBe(1);
    expect(nameMatchScore('Adébáyọ̀ Ọlá', 'MR ADEBAYO OLA')).toBe(1);
    expect(nameMatchScore('Acme Trading Limited', 'ACME TRADING LTD')).toBe(1);
  });

  it('tolerates a small typo and a word split in two', () => {
    expect(passes('Chinedu Okafor', 'Chinedu Okafro')).toBe(true);
    expect(passes('Oluwaseun Adebayo', 'OLUWASUEN ADEBAYO')).toBe(true);
    expect(nameMatchScore('Oluwaseun Adebayo', 'Oluwa Seun Adebayo')).toBe(1);
    expect(passes('J. Adebayo', 'John Adebayo')).toBe(true);
    // Strict on short words: a typo in a 4-letter name waits for a reviewer.
    expect(passes('John Adebayo', 'Jhon Adebayo')).toBe(false);
  });

  it('does not let a first name alone or trade words carry a match', () => {
    expect(nameMatchScore('John', 'John Adebayo')).toBe(0.5);
    expect(passes('Acme Ventures Ltd', 'Acme Enterprises Ltd')).toBe(false);
    expect(passes('John Adebayo', 'John Adebayo Trading Services Global')).toBe(false);
  });

  it('is 0 for empty or honorific-only names and stays within [0, 1]', () => {
    expect(nameMatchScore('', 'John Adebayo')).toBe(0);
    expect(nameMatchScore('John Adebayo', '')).toBe(0);
    expect(nameMatchScore('', '')).toBe(0);
    expect(nameMatchScore('Mr', 'Mrs')).toBe(0);
    for (const [a, b] of [
      ['a b c d e f', 'f e d c b a'],
      ['x', 'y'],
      ['Ngozi', 'Ngozi'],
    ]) {
      const s = nameMatchScore(a, b);
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1);
    }
  });

  it('is symmetric and cheap on long input', () => {
    const pairs: [string, string][] = [
      ['ADEBAYO JOHN OLUWASEUN', 'John Adebayo'],
      ['Chinedu Okafor', 'Chinedu Okafro'],
      ['Oluwa Seun Adebayo', 'Oluwaseun Adebayo'],
    ];
    for (const [a, b] of pairs) expect(nameMatchScore(a, b)).toBeCloseTo(nameMatchScore(b, a), 10);
    const start = Date.now();
    nameMatchScore('a'.repeat(1_000_000), 'word '.repeat(200_000));
    expect(Date.now() - start).toBeLessThan(500);
  });

  it('has a threshold between a typo and a different surname', () => {
    expect(NAME_MATCH_THRESHOLD).toBe(0.85);
  });
});
