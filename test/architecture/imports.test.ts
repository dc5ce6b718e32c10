import * as path from 'node:path';
import { importCycles, readImportGraph } from '../support/import-graph';

const ROOT = path.resolve(__dirname, '..', '..');
const graph = readImportGraph(ROOT);

/** The house rules of docs/architecture.md, checked on the import graph itself. */
describe('architecture', () => {
  it('reads the whole source tree', () => {
    expect(graph.edges.size).toBeGreaterThan(100);
    expect(graph.edges.get('gateway/src/app.ts')).toContain('gateway/src/deps.ts');
  });

  it('has no import cycles', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('keeps domain code free of gRPC, HTTP frameworks, databases and messaging', () => {
    const forbidden = /^(@grpc\/|fastify|mongoose|nats$|@fastify\/|opossum)/;
    const offenders: string[] = [];
    for (const [file, externals] of graph.external) {
      if (!/^services\/[^/]+\/src\/domain\//.test(file)) continue;
      for (const spec of externals) if (forbidden.test(spec)) offenders.push(`${file} → ${spec}`);
      for (const target of graph.edges.get(file) ?? []) {
        if (/\/src\/(grpc|repo|adapters|events)\//.test(target)) offenders.push(`${file} → ${target}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('gateway routes depend on deps.ts, never on the app module', () => {
    const offenders = [...graph.edges]
      .filter(([file]) => file.startsWith('gateway/src/routes/'))
      .flatMap(([file, targets]) => targets.filter((t) => t === 'gateway/src/app.ts').map((t) => `${file} → ${t}`));
    expect(offenders).toEqual([]);
  });
});
