import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

/**
 * Starts a bench helper process (a built script beside this one) and resolves once it prints its first
 * line ("ready"). BENCH_PROFILE_DIR profiles helpers too (under <dir>/<script>-<first arg>/), so a
 * helper's profile can be read beside the platform process that takes its place.
 */
export function startHelper(script: string, args: string[], env: Record<string, string>): Promise<ChildProcess> {
  const dir = process.env.BENCH_PROFILE_DIR;
  const profile = dir
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${path.resolve(dir, [path.basename(script, '.js'), ...args.slice(0, 1)].join('-'))}`,
      ]
    : [];
  const child = spawn(process.execPath, [...profile, path.join(__dirname, script), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`${script} ${args.join(' ')} exited with ${code}`)));
  });
}
