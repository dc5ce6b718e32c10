#!/usr/bin/env bash
# The typed partner client (packages/partner-client) against the document the gateway serves:
#  1. its openapi.json is that document (and every operation has a typed call in check/);
#  2. its src/schema.ts is what openapi-typescript generates from it;
#  3. one typed call per operation (check/every-operation.ts) and the README's example
#     (check/readme-example.ts) compile under tsc --strict.
# `npm run gen:partner-client` regenerates 1 and 2.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
npx jest --selectProjects unit -- gateway/src/openapi.test.ts
generated="$(mktemp --suffix=.ts)"
trap 'rm -f "$generated"' EXIT
npx openapi-typescript packages/partner-client/openapi.json -o "$generated" >/dev/null
if ! diff -q "$generated" packages/partner-client/src/schema.ts >/dev/null; then
  echo "packages/partner-client/src/schema.ts is stale: run npm run gen:partner-client" >&2
  exit 1
fi
node scripts/partner-client-readme.js --check
npx tsc -p packages/partner-client/check/tsconfig.json
echo "partner client: document, types and one typed call per operation are in step"
