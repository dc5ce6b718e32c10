import * as path from 'node:path';

/** Repository root (this file lives in packages/devstack/{src,dist}). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const INFRA_SCRIPT = path.join(REPO_ROOT, 'scripts', 'infra.sh');
