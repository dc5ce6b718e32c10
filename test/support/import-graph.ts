import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

/**
 * The project's own import graph, read with the TypeScript pre-processor (type-only imports count:
 * a cycle of types is still a cycle a reader has to untangle). Workspace packages resolve to their
 * sources; third-party modules are leaves named by their package.
 */
export interface ImportGraph {
  /** file (repo-relative) → files it imports (repo-relative) */
  edges: Map<string, string[]>;
  /** file (repo-relative) → third-party module specifiers it imports */
  external: Map<string, string[]>;
}

const WORKSPACE_ENTRY: Record<string, string> = {
  '@ppay/kernel': 'packages/kernel/src/index.ts',
  '@ppay/runtime': 'packages/runtime/src/index.ts',
  '@ppay/runtime/telemetry': 'packages/runtime/src/telemetry/tracing.ts',
  '@ppay/webhooks-receiver': 'packages/webhooks-receiver/src/index.ts',
  '@ppay/proto': 'proto/src/index.ts',
  '@ppay/stripe-support': 'packages/stripe-support/src/index.ts',
  '@ppay/devstack': 'packages/devstack/src/index.ts',
};

const SOURCE_ROOTS = ['packages', 'services', 'gateway', 'proto/src'];

function sourceFiles(root: string, dir: string): string[] {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return [];
  return fs.readdirSync(abs, { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return ['node_modules', 'dist', 'generated'].includes(e.name) ? [] : sourceFiles(root, rel);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') && !e.name.endsWith('.test.ts') ? [rel] : [];
  });
}

function resolveRelative(root: string, from: string, spec: string): string | undefined {
  const base = path.join(path.dirname(from), spec);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts'), base]) {
    if (candidate.endsWith('.ts') && fs.existsSync(path.join(root, candidate))) return candidate;
  }
  return undefined;
}

export function readImportGraph(root: string): ImportGraph {
  const files = SOURCE_ROOTS.flatMap((d) => sourceFiles(root, d)).filter((f) => /\/src\//.test(`/${f}`));
  const edges = new Map<string, string[]>();
  const external = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(fs.readFileSync(path.join(root, file), 'utf8'), true, true);
    const local: string[] = [];
    const outside: string[] = [];
    for (const { fileName: spec } of info.importedFiles) {
      if (spec.startsWith('.')) {
        const target = resolveRelative(root, file, spec);
        if (target) local.push(target);
      } else if (WORKSPACE_ENTRY[spec]) {
        local.push(WORKSPACE_ENTRY[spec]);
      } else {
        outside.push(spec);
      }
    }
    edges.set(file, local);
    external.set(file, outside);
  }
  return { edges, external };
}

/** Strongly connected components with more than one file (Tarjan): each is an import cycle. */
export function importCycles(graph: ImportGraph): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.edges.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
      }
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.edges.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.edges.keys()) if (!indexOf.has(v)) visit(v);
  return cycles;
}

/** Every project file `file` reaches through its imports, workspace packages included (not itself). */
export function reachableFrom(graph: ImportGraph, file: string): Set<string> {
  const seen = new Set<string>();
  const pending = [...(graph.edges.get(file) ?? [])];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (seen.has(next) || next === file) continue;
    seen.add(next);
    pending.push(...(graph.edges.get(next) ?? []));
  }
  return seen;
}
