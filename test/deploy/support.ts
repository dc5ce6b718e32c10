import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse, parseAllDocuments } from 'yaml';

const execFileAsync = promisify(execFile);

export const REPO = path.resolve(__dirname, '..', '..');
export const CHART = path.join(REPO, 'helm', 'partner-payments');
export const PRODUCTION_VALUES = path.join(CHART, 'values-production.yaml');
/** Kubernetes version the chart is rendered for and validated against (schemas vendored for it). */
export const KUBE_VERSION = '1.33.0';
export const SCHEMA_DIR = path.join(REPO, 'deploy', 'kubernetes-schemas', `v${KUBE_VERSION}`);

/** Builds/installs helm if needed (scripts/deploy-tools.sh) and returns its path. */
let helmPath: string | undefined;
export function helmBinary(): string {
  if (!helmPath) {
    helmPath = execFileSync('bash', [path.join(REPO, 'scripts', 'deploy-tools.sh')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: 15 * 60_000,
    }).trim();
  }
  return helmPath;
}

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs helm offline (no repositories, no cluster) and never throws. */
export async function helm(args: string[]): Promise<HelmResult> {
  const home = path.join(REPO, '.tools', 'helm-home');
  try {
    const { stdout, stderr } = await execFileAsync(helmBinary(), args, {
      cwd: REPO,
      maxBuffer: 64 * 1024 * 1024,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        HELM_CACHE_HOME: path.join(home, 'cache'),
        HELM_CONFIG_HOME: path.join(home, 'config'),
        HELM_DATA_HOME: path.join(home, 'data'),
        // No cluster: make sure nothing reaches a kubeconfig by accident.
        KUBECONFIG: '/dev/null',
      },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? String(err) };
  }
}

export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: any;
};

/** `helm template` → parsed manifests; throws with helm's stderr on failure. */
export async function renderChart(extraArgs: string[] = [], release = 'ppay'): Promise<Manifest[]> {
  const res = await helm([
    'template',
    release,
    CHART,
    '--namespace',
    'payments',
    '--kube-version',
    KUBE_VERSION,
    ...extraArgs,
  ]);
  if (res.code !== 0) throw new Error(`helm template failed (${res.code}):\n${res.stderr}`);
  return parseAllDocuments(res.stdout)
    .map((doc) => {
      if (doc.errors.length) throw new Error(`rendered YAML does not parse: ${doc.errors[0].message}`);
      return doc.toJS() as Manifest | null;
    })
    .filter((m): m is Manifest => m !== null && typeof m === 'object');
}

/** "apps/v1" + "Deployment" → "deployment-apps-v1" (kubeconform/kubernetes-validate naming). */
export function schemaFileFor(apiVersion: string, kind: string): string {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const groupPart = group ? `-${group.split('.')[0]}` : '';
  return `${kind.toLowerCase()}${groupPart}-${version}`;
}

/**
 * Strict validators for the Kubernetes kinds the chart renders, from the vendored JSON schemas
 * (additionalProperties: false everywhere: unknown or misplaced fields fail).
 */
export function kubernetesValidators(): (m: Manifest) => { ok: boolean; errors: string[] } {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  const int = (bits: number) => ({
    type: 'number' as const,
    validate: (n: number) => Number.isInteger(n) && Math.abs(n) < 2 ** (bits - 1),
  });
  ajv.addFormat('int32', int(32));
  ajv.addFormat('int64', int(64));
  ajv.addFormat('byte', /^[A-Za-z0-9+/]*={0,2}$/);
  ajv.addSchema(JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, '_definitions.json'), 'utf8')));
  const compiled = new Map<string, ValidateFunction>();
  return (m) => {
    const file = path.join(SCHEMA_DIR, `${schemaFileFor(m.apiVersion, m.kind)}.json`);
    if (!fs.existsSync(file))
      return { ok: false, errors: [`no vendored schema for ${m.apiVersion} ${m.kind} (${file})`] };
    let validate = compiled.get(file);
    if (!validate) {
      validate = ajv.compile(JSON.parse(fs.readFileSync(file, 'utf8')));
      compiled.set(file, validate);
    }
    const ok = validate(m) as boolean;
    return {
      ok,
      errors: ok
        ? []
        : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`),
    };
  };
}

/** YAML with merge keys (<<) as docker compose reads it. */
export function readYaml<T = any>(file: string): T {
  return parse(fs.readFileSync(file, 'utf8'), { merge: true }) as T;
}

/** Workspaces that run as a process: gateway + services/* (from the root package.json's workspaces). */
export function processWorkspaces(): Map<string, { dir: string; main: string }> {
  const out = new Map<string, { dir: string; main: string }>();
  const servicesDir = path.join(REPO, 'services');
  for (const name of fs.readdirSync(servicesDir)) {
    const pkgFile = path.join(servicesDir, name, 'package.json');
    if (!fs.existsSync(pkgFile)) continue;
    const pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8'));
    out.set(name, { dir: `services/${name}`, main: `services/${name}/${pkg.main}` });
  }
  const gw = JSON.parse(fs.readFileSync(path.join(REPO, 'gateway', 'package.json'), 'utf8'));
  out.set('gateway', { dir: 'gateway', main: `gateway/${gw.main}` });
  return out;
}
