// The README's example of packages/partner-client as a module tsc can check (check/readme-example.ts):
// its import at the top, the rest in an async function. Written by `npm run gen:partner-client`;
// scripts/partner-client-check.sh fails when the file and the README differ.
const fs = require('node:fs');
const path = require('node:path');
const dir = path.join(__dirname, '..', 'packages', 'partner-client');
const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
const code = /```ts\n([\s\S]*?)```/.exec(readme)[1].split('\n');
const imports = code.filter((l) => l.startsWith('import ')).map((l) => l.replace("'@ppay/partner-client'", "'../src'"));
const body = code
  .filter((l) => !l.startsWith('import '))
  .join('\n')
  .trim();
const out = [
  "// The README's example (scripts/partner-client-readme.js writes it), compiled by npm run test:partner-client.",
  ...imports,
  '',
  'export async function readmeExample(): Promise<void> {',
  ...body.split('\n').map((l) => (l ? `  ${l}` : l)),
  '}',
  '',
].join('\n');
if (process.argv[2] === '--check') {
  if (fs.readFileSync(path.join(dir, 'check', 'readme-example.ts'), 'utf8') !== out) {
    process.stderr.write(
      'packages/partner-client/check/readme-example.ts differs from the README: run npm run gen:partner-client\n',
    );
    process.exit(1);
  }
} else fs.writeFileSync(path.join(dir, 'check', 'readme-example.ts'), out);
