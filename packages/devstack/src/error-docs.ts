import * as fs from 'node:fs';
import * as path from 'node:path';
import { ERROR_CATALOGUE, type ErrorGroup } from '@ppay/kernel';
import { REPO_ROOT } from './paths';

/** docs/errors.md, generated from the kernel's error catalogue (`npm run docs:errors`); a test keeps them equal. */
export const ERROR_DOCS_PATH = path.join(REPO_ROOT, 'docs', 'errors.md');

const GROUP_TITLES: Record<ErrorGroup, string> = {
  authentication: 'authentication — the credential is missing or wrong (401)',
  permission: 'permission — authenticated, but not allowed (403)',
  invalid_request: 'invalid_request — fix the request before retrying (400, 405, 413, 415, 422)',
  not_found: 'not_found — no such resource for this merchant and mode (404)',
  state_conflict: 'state_conflict — the resource changed or is in another state; re-read it (409)',
  rate_limit: 'rate_limit — slow down and retry after `Retry-After` (429)',
  infrastructure: 'infrastructure — our side; safe to retry with the same Idempotency-Key (5xx)',
};

export function renderErrorDocs(): string {
  const lines = [
    '# Error codes',
    '',
    '<!-- Generated from packages/kernel/src/errors.ts by `npm run docs:errors`; a test fails when they differ. -->',
    '',
    'Every error body: `{"success": false, "message": "...", "error": {"code", "type", "message", "param"?, "detail"?, "request_id"}}`.',
    "`code` is stable and `type` is its group; `message` may be refined (the spec's wording where the spec gives one).",
    'Services send the code in a gRPC trailer and the gateway answers with the HTTP status the catalogue gives it.',
  ];
  const groups = [...new Set(Object.values(ERROR_CATALOGUE).map((e) => e.group))];
  for (const group of groups) {
    lines.push('', `## ${GROUP_TITLES[group]}`, '', '| Code | HTTP | Default message |', '|---|---|---|');
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      if (entry.group === group) lines.push(`| ${code} | ${entry.http} | ${entry.message} |`);
    }
  }
  return lines.join('\n') + '\n';
}

if (require.main === module) {
  fs.writeFileSync(ERROR_DOCS_PATH, renderErrorDocs());
  process.stdout.write(`wrote ${path.relative(REPO_ROOT, ERROR_DOCS_PATH)}\n`);
}
