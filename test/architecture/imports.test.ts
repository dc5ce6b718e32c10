import * as fs from 'node:fs';
import * as path from 'node:path';
import { importCycles, reachableFrom, readImportGraph } from '../support/import-graph';

const ROOT = path.resolve(__dirname, '..', '..');
const graph = readImportGraph(ROOT);

/**
 * Libraries that tie code to a transport, a framework, a database, messaging, an observability backend or a
 * payment processor.
 */
const INFRASTRUCTURE =
  /^(@grpc\/|@fastify\/|fastify$|mongoose$|mongodb$|nats$|opossum$|pino$|prom-client$|stripe$|@ppay\/stripe-support$|@opentelemetry\/|@ppay\/proto$|@ppay\/runtime)/;

/**
 * The service layout of docs/architecture.md: wiring at the service root (`main.ts`, `config.ts`,
 * `instrument.ts`) and adapters named by their job (`*.repo.ts`, `*.handlers.ts`, `*.consumer.ts`,
 * `*.adapter.ts`, `*.metrics.ts`); every other file of a service, test helpers aside, is domain code.
 */
const ADAPTER_FILE =
  /(^services\/[^/]+\/src\/(main|config|instrument)\.ts$)|\.(repo|handlers|consumer|adapter|metrics)\.ts$/;
const isDomainFile = (file: string) =>
  /^services\/[^/]+\/src\//.test(file) && !ADAPTER_FILE.test(file) && !file.endsWith('.test-util.ts');

/** The house rules of docs/architecture.md, checked on the import graph itself. */
describe('architecture', () => {
  it('reads the whole source tree, workspace packages as their sources', () => {
    expect(graph.edges.size).toBeGreaterThan(100);
    expect(graph.edges.get('services/payments/src/main.ts')).toContain('packages/runtime/src/index.ts');
    const unresolved = [...graph.external].flatMap(([file, specs]) =>
      specs.filter((s) => s.startsWith('@ppay/')).map((s) => `${file} → ${s}`),
    );
    expect(unresolved).toEqual([]);
    expect(graph.edges.get('gateway/src/app.ts')).toContain('gateway/src/deps.ts');
    expect([...graph.edges.keys()].filter(isDomainFile).length).toBeGreaterThan(60);
  });

  it('has no import cycles', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('keeps the kernel pure: no dependencies, nothing but Node built-ins and its own files', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'packages/kernel/package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    expect(pkg.dependencies ?? {}).toEqual({});
    const offenders = [...graph.external]
      .filter(([file]) => file.startsWith('packages/kernel/src/'))
      .flatMap(([file, specs]) => specs.filter((s) => !s.startsWith('node:')).map((s) => `${file} → ${s}`));
    expect(offenders).toEqual([]);
    const outside = [...graph.edges]
      .filter(([file]) => file.startsWith('packages/kernel/src/'))
      .flatMap(([file, targets]) =>
        targets.filter((t) => !t.startsWith('packages/kernel/src/')).map((t) => `${file} → ${t}`),
      );
    expect(outside).toEqual([]);
  });

  it('keeps domain code free of the runtime, adapters and infrastructure libraries, however indirectly', () => {
    const offenders: string[] = [];
    for (const file of graph.edges.keys()) {
      if (!isDomainFile(file)) continue;
      for (const reached of [file, ...reachableFrom(graph, file)]) {
        const via = reached === file ? '' : ` (via ${reached})`;
        if (reached.startsWith('packages/runtime/') || ADAPTER_FILE.test(reached))
          offenders.push(`${file} → ${reached}`);
        for (const spec of graph.external.get(reached) ?? []) {
          if (INFRASTRUCTURE.test(spec)) offenders.push(`${file} → ${spec}${via}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it('gives every service the same skeleton: wiring at the root, one folder per subdomain', () => {
    const services = fs.readdirSync(path.join(ROOT, 'services'));
    const shapes = services.map((name) => {
      const src = path.join(ROOT, 'services', name, 'src');
      const entries = fs.readdirSync(src, { withFileTypes: true });
      const folders = entries.filter((e) => e.isDirectory() && e.name !== 'data').map((e) => e.name);
      const wiring = ['main.ts', 'config.ts', 'instrument.ts', 'merchant-data.repo.ts'].filter((f) =>
        fs.existsSync(path.join(src, f)),
      );
      const layered = folders.filter((f) => ['domain', 'grpc', 'repo', 'adapters', 'events'].includes(f));
      return { name, wiring: wiring.length, subdomains: folders.length > 1, layered };
    });
    expect(shapes).toEqual(services.map((name) => ({ name, wiring: 4, subdomains: true, layered: [] })));
  });

  it('gateway routes depend on deps.ts, never on the app module', () => {
    const offenders = [...graph.edges]
      .filter(([file]) => file.startsWith('gateway/src/routes/'))
      .flatMap(([file, targets]) => targets.filter((t) => t === 'gateway/src/app.ts').map((t) => `${file} → ${t}`));
    expect(offenders).toEqual([]);
  });
});
