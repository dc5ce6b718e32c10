import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO } from './support';

/**
 * scripts/lib/lint-proto.sh (npm run lint:proto, run by .ci/run) in throwaway repositories: the history
 * cases CI can meet (first commit, shallow clone with and without a remote to deepen from) and that a
 * deleted field fails the breaking check until its number is reserved. proto/buf.yaml is the real one.
 */
describe('npm run lint:proto (scripts/lib/lint-proto.sh)', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lint-proto-'));
  const origin = path.join(tmp, 'origin');
  const gitEnv = {
    GIT_AUTHOR_NAME: 'test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  };
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...gitEnv } });

  const writeProto = (repo: string, body: string): void =>
    fs.writeFileSync(
      path.join(repo, 'proto', 'demo', 'v1', 'demo.proto'),
      `syntax = "proto3";\n\npackage demo.v1;\n\nmessage Thing {\n${body}}\n`,
    );
  const commit = (repo: string, message: string): void => {
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', message);
  };

  /** Runs the repository's copy of the script with this work tree's buf (node_modules/.bin). */
  const lintProto = (repo: string): { code: number; output: string } => {
    const run = spawnSync('bash', [path.join(repo, 'scripts', 'lib', 'lint-proto.sh')], {
      cwd: repo,
      encoding: 'utf8',
      env: { ...process.env, ...gitEnv, BUF: path.join(REPO, 'node_modules', '.bin', 'buf') },
      timeout: 60_000,
    });
    return { code: run.status ?? 1, output: `${run.stdout}${run.stderr}` };
  };

  beforeAll(() => {
    for (const file of ['scripts/lib/lint-proto.sh', 'proto/buf.yaml']) {
      fs.mkdirSync(path.dirname(path.join(origin, file)), { recursive: true });
      fs.copyFileSync(path.join(REPO, file), path.join(origin, file));
    }
    fs.mkdirSync(path.join(origin, 'proto', 'demo', 'v1'), { recursive: true });
    git(origin, 'init', '-q', '-b', 'main');
    writeProto(origin, '  string id = 1;\n  string note = 2;\n  int64 amount = 3;\n');
    commit(origin, 'first');
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it(
    'lints the first commit and says why there is nothing to compare with',
    () => {
      const run = lintProto(origin);
      expect(run.output).toContain('buf lint: ok');
      expect(run.output).toContain('HEAD is the first commit');
      expect(run.code).toBe(0);
    },
    15 * 60_000,
  );

  it('fails a deleted field until its number is reserved', () => {
    writeProto(origin, '  string id = 1;\n  int64 amount = 3;\n');
    commit(origin, 'note deleted');
    const deleted = lintProto(origin);
    expect(deleted.output).toMatch(/field "2" with name "note" on message "Thing" was deleted without reserving/);
    expect(deleted.code).toBe(1);

    writeProto(origin, '  reserved 2; // string note\n  reserved "note";\n  string id = 1;\n  int64 amount = 3;\n');
    git(origin, 'commit', '-q', '-a', '--amend', '-m', 'note deleted, its number reserved');
    const reserved = lintProto(origin);
    expect(reserved.output).toContain('buf breaking: ok');
    expect(reserved.code).toBe(0);
  });

  it('fails a changed wire type', () => {
    writeProto(origin, '  reserved 2;\n  reserved "note";\n  string id = 1;\n  string amount = 3;\n');
    const run = lintProto(origin);
    expect(run.output).toMatch(/Field "3" with name "amount" on message "Thing" changed type from "int64" to "string"/);
    expect(run.code).toBe(1);
    git(origin, 'checkout', '-q', '--', '.');
  });

  it('deepens a shallow clone by one commit and compares with it', () => {
    const clone = path.join(tmp, 'shallow');
    git(tmp, 'clone', '-q', '--depth=1', `file://${origin}`, clone);
    expect(git(clone, 'rev-parse', '--is-shallow-repository').trim()).toBe('true');
    const run = lintProto(clone);
    expect(run.output).toContain('git fetch --deepen=1');
    expect(run.output).toContain('buf breaking: ok');
    expect(run.code).toBe(0);
  });

  it('says loudly that the breaking check did not run when a shallow clone cannot be deepened', () => {
    const clone = path.join(tmp, 'shallow-orphan');
    git(tmp, 'clone', '-q', '--depth=1', `file://${origin}`, clone);
    git(clone, 'remote', 'remove', 'origin');
    const run = lintProto(clone);
    expect(run.output).toContain('buf breaking DID NOT RUN');
    expect(run.output).not.toContain('HEAD is the first commit');
    expect(run.code).toBe(0);
  });
});
