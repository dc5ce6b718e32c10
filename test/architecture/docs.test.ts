import * as fs from 'node:fs';
import { ERROR_DOCS_PATH, renderErrorDocs } from '../../packages/devstack/src/error-docs';

describe('generated docs', () => {
  it('docs/errors.md is the error catalogue as it is (run `npm run docs:errors` after changing it)', () => {
    expect(fs.readFileSync(ERROR_DOCS_PATH, 'utf8')).toBe(renderErrorDocs());
  });
});

/** Paths the guides name in backticks (`services/payments/src/main.ts`, `scripts/infra.sh`…) exist. */
describe('the guides name real files', () => {
  const ROOT = `${__dirname}/../..`;
  const GUIDES = ['README.md', 'docs/architecture.md', 'docs/adding-a-feature.md'];
  const PATH = /`((?:services|packages|gateway|proto|scripts|test|deploy|helm|examples)\/[A-Za-z0-9_./<>*{}|-]+)`/g;

  it.each(GUIDES)('%s', (guide) => {
    const text = fs.readFileSync(`${ROOT}/${guide}`, 'utf8');
    const missing = [...text.matchAll(PATH)]
      .map((m) => m[1]!.replace(/[.:,]$/, ''))
      // Patterns (`services/<name>/src/`, `*.test.ts`, `{a|b}`) describe files rather than name one.
      .filter((p) => !/[<>*{}|]/.test(p))
      .filter((p) => !fs.existsSync(`${ROOT}/${p}`));
    expect([...new Set(missing)]).toEqual([]);
  });
});
