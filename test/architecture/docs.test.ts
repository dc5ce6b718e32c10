import * as fs from 'node:fs';
import { ERROR_DOCS_PATH, renderErrorDocs } from '../../packages/devstack/src/error-docs';

describe('generated docs', () => {
  it('docs/errors.md is the error catalogue as it is (run `npm run docs:errors` after changing it)', () => {
    expect(fs.readFileSync(ERROR_DOCS_PATH, 'utf8')).toBe(renderErrorDocs());
  });
});
