import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMPONENTS } from '@ppay/kernel';
import { DEFAULT_PORTS, grpcAddrEnvVar } from '@ppay/runtime';
import {
  CHART,
  helmBinary,
  processWorkspaces,
  PRODUCTION_VALUES,
  readYaml,
  renderChart,
  REPO,
  type Manifest,
} from './support';

/**
 * Every component named in docker-compose.yml, the Prometheus config and the Helm chart is a real
 * workspace, runs that workspace's entry point, and uses the ports of packages/runtime/src/ports.ts.
 */
describe('deployment files match the code', () => {
  const workspaces = processWorkspaces();
  const names = ['gateway', ...COMPONENTS] as const;
  beforeAll(() => {
    helmBinary(); // first run on a fresh machine builds helm (minutes); later runs copy it from the cache
  }, 15 * 60_000);

  const mainPort = (name: (typeof names)[number]) =>
    name === 'gateway' ? DEFAULT_PORTS.gateway.http : DEFAULT_PORTS[name].grpc;

  it('the process workspaces are exactly the gateway and the kernel COMPONENTS', () => {
    expect([...workspaces.keys()].sort()).toEqual([...names].sort());
    expect(Object.keys(DEFAULT_PORTS).sort()).toEqual([...names].sort());
    for (const [name, ws] of workspaces)
      expect([name, fs.existsSync(path.join(REPO, ws.dir, 'src', 'main.ts'))]).toEqual([name, true]);
  });

  it('docker-compose.yml: each component runs its workspace entry point on its ports', () => {
    const compose = readYaml(path.join(REPO, 'docker-compose.yml'));
    for (const name of names) {
      const s = compose.services[name];
      expect([name, s.command]).toEqual([name, ['node', workspaces.get(name)!.main]]);
      const env = s.environment;
      expect([name, Number(env.METRICS_PORT)]).toEqual([name, DEFAULT_PORTS[name].metrics]);
      if (name === 'gateway') expect(Number(env.PORT)).toBe(DEFAULT_PORTS.gateway.http);
      else expect([name, Number(env.GRPC_PORT)]).toEqual([name, DEFAULT_PORTS[name].grpc]);
    }
    // Every process can reach every service: the gateway, and services calling each other
    // (payments → fx-pricing for conversions, → marketplace for splits).
    for (const name of names) {
      for (const c of COMPONENTS) {
        expect([name, c, compose.services[name].environment[grpcAddrEnvVar(c)]]).toEqual([
          name,
          c,
          `${c}:${DEFAULT_PORTS[c].grpc}`,
        ]);
      }
    }
    expect(compose.services.gateway.ports).toEqual([`\${GATEWAY_PUBLISH_PORT:-8080}:${DEFAULT_PORTS.gateway.http}`]);
  });

  it('Prometheus scrapes every component on its metrics port', () => {
    const prom = readYaml(path.join(REPO, 'deploy', 'prometheus', 'prometheus.yml'));
    const targets = prom.scrape_configs
      .find((j: any) => j.job_name === 'ppay')
      .static_configs.flatMap((sc: any) => sc.targets);
    expect(targets.sort()).toEqual(names.map((n) => `${n}:${DEFAULT_PORTS[n].metrics}`).sort());
  });

  it('Helm values: one entry per component with its workspace command and ports', () => {
    const values = readYaml(path.join(CHART, 'values.yaml'));
    expect(Object.keys(values.components).sort()).toEqual([...names].sort());
    for (const name of names) {
      const c = values.components[name];
      expect([name, c.command]).toEqual([name, ['node', workspaces.get(name)!.main]]);
      expect([name, c.kind]).toEqual([name, name === 'gateway' ? 'http' : 'grpc']);
      expect([name, c.ports]).toEqual([
        name,
        name === 'gateway'
          ? DEFAULT_PORTS.gateway
          : { grpc: DEFAULT_PORTS[name].grpc, metrics: DEFAULT_PORTS[name].metrics },
      ]);
    }
  });

  it.each([
    ['default values', []],
    ['production values', ['-f', PRODUCTION_VALUES]],
  ])('rendered chart (%s): containers, Services and the gateway addresses agree', async (_what, args) => {
    const ms = await renderChart(args as string[]);
    const of = (kind: string, name: string): Manifest =>
      ms.find((m) => m.kind === kind && m.metadata.labels?.['app.kubernetes.io/component'] === name)!;
    const serviceNames = new Map<string, Manifest>(
      ms.filter((m) => m.kind === 'Service').map((s) => [s.metadata.name, s]),
    );
    for (const name of names) {
      const container = of('Deployment', name).spec.template.spec.containers[0];
      expect([name, container.command]).toEqual([name, ['node', workspaces.get(name)!.main]]);
      expect(container.ports.map((p: any) => p.containerPort)).toEqual([mainPort(name), DEFAULT_PORTS[name].metrics]);
      const cm = of('ConfigMap', name).data;
      expect(Number(cm.METRICS_PORT)).toBe(DEFAULT_PORTS[name].metrics);
      expect(cm.METRICS_HOST).toBe('0.0.0.0');
      if (name === 'gateway') expect([cm.HOST, Number(cm.PORT)]).toEqual(['0.0.0.0', DEFAULT_PORTS.gateway.http]);
      else {
        expect([cm.GRPC_HOST, Number(cm.GRPC_PORT)]).toEqual(['0.0.0.0', DEFAULT_PORTS[name].grpc]);
        expect(cm.MONGODB_DB).toBe(`ppay_${name.replace(/-/g, '_')}`);
      }
      const svc = of('Service', name);
      expect(svc.spec.ports.map((p: any) => p.port)).toEqual([mainPort(name), DEFAULT_PORTS[name].metrics]);
    }
    // Every component (the gateway, and services calling each other) reaches each service through
    // that service's Kubernetes Service and gRPC port.
    for (const name of names) {
      const cm = of('ConfigMap', name).data;
      for (const c of COMPONENTS) {
        const [host, port] = (cm[grpcAddrEnvVar(c)] ?? ':').split(':');
        const svc = serviceNames.get(host);
        expect([name, c, svc?.metadata.labels?.['app.kubernetes.io/component']]).toEqual([name, c, c]);
        expect([name, c, Number(port)]).toEqual([name, c, DEFAULT_PORTS[c].grpc]);
      }
    }
  });
});
