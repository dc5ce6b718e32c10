import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { COMPONENTS } from '@ppay/kernel';
import { DEFAULT_PORTS } from '@ppay/runtime';
import { parse } from 'yaml';
import {
  CHART,
  helm,
  helmBinary,
  kubernetesValidators,
  PRODUCTION_VALUES,
  renderChart,
  type Manifest,
} from './support';
import { alertRuleFiles } from './promql';

/**
 * The Helm chart, validated without a cluster: helm lint --strict, helm template for the default
 * and the production values, every rendered manifest against the Kubernetes API schemas (strict,
 * vendored in deploy/kubernetes-schemas), values.schema.json rejecting bad values, and the
 * properties the platform relies on (probes, security, NetworkPolicy, secrets).
 */
describe('helm chart', () => {
  let defaults: Manifest[];
  let production: Manifest[];
  const validate = kubernetesValidators();

  beforeAll(async () => {
    helmBinary(); // builds helm from the Go module proxy on a fresh machine (cached afterwards)
    [defaults, production] = await Promise.all([renderChart(), renderChart(['-f', PRODUCTION_VALUES])]);
  }, 15 * 60_000);

  const byKind = (ms: Manifest[], kind: string) => ms.filter((m) => m.kind === kind);
  const named = (ms: Manifest[], kind: string, component: string) =>
    ms.find((m) => m.kind === kind && m.metadata.labels?.['app.kubernetes.io/component'] === component);

  it('passes helm lint --strict with the default and the production values', async () => {
    for (const args of [[], ['-f', PRODUCTION_VALUES]]) {
      const res = await helm(['lint', '--strict', CHART, '--kube-version', '1.33.0', ...args]);
      expect([res.code, res.stderr]).toEqual([0, expect.anything()]);
      expect(res.stdout).toContain('0 chart(s) failed');
    }
  });

  it('renders the expected objects for the default and the production values', () => {
    const count = (ms: Manifest[]) =>
      ms.reduce<Record<string, number>>((acc, m) => ({ ...acc, [m.kind]: (acc[m.kind] ?? 0) + 1 }), {});
    const n = COMPONENTS.length + 1;
    expect(count(defaults)).toEqual({
      ConfigMap: n,
      Deployment: n,
      Service: n,
      NetworkPolicy: n,
      PodDisruptionBudget: n,
      Secret: 1,
      ServiceAccount: 1,
    });
    expect(count(production)).toEqual({
      ConfigMap: n,
      Deployment: n,
      Service: n,
      NetworkPolicy: n,
      PodDisruptionBudget: n,
      HorizontalPodAutoscaler: n,
      Ingress: 1,
      ServiceAccount: 1,
      ServiceMonitor: 1,
      PrometheusRule: 1,
    });
  });

  it('every rendered manifest validates strictly against the Kubernetes 1.33 API schemas', () => {
    const failures: string[] = [];
    let checked = 0;
    for (const m of [...defaults, ...production]) {
      // ServiceMonitor and PrometheusRule are Prometheus Operator CRDs: no official schema can be
      // vendored offline here; their shapes are asserted in the next tests instead.
      if (m.kind === 'ServiceMonitor' || m.kind === 'PrometheusRule') continue;
      const res = validate(m);
      checked++;
      if (!res.ok) failures.push(`${m.kind}/${m.metadata.name}: ${res.errors.join('; ')}`);
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(60);
  });

  it('the strict validation catches unknown and mistyped fields (the check has teeth)', () => {
    const deployment = structuredClone(named(defaults, 'Deployment', 'payments')!);
    deployment.spec.template.spec.containers[0].livenessProbe.grcp = { port: 50051 };
    expect(validate(deployment).ok).toBe(false);
    const service = structuredClone(named(defaults, 'Service', 'payments')!);
    service.spec.ports[0].port = 'fifty';
    expect(validate(service).ok).toBe(false);
    expect(validate(named(defaults, 'Service', 'payments')!).ok).toBe(true);
  });

  it('ServiceMonitor (CRD, not schema-validated) selects the component Services by their metrics port', () => {
    const sm = byKind(production, 'ServiceMonitor')[0];
    expect(sm.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(Object.keys(sm.spec).sort()).toEqual(['endpoints', 'namespaceSelector', 'selector']);
    expect(sm.spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '15s', scrapeTimeout: '10s' }]);
    const services = byKind(production, 'Service');
    const selected = services.filter((s) =>
      Object.entries(sm.spec.selector.matchLabels).every(([k, v]) => s.metadata.labels?.[k] === v),
    );
    expect(selected).toHaveLength(services.length);
    for (const s of selected) expect(s.spec.ports.map((p: any) => p.name)).toContain('metrics');
    expect(sm.metadata.labels?.release).toBe('kube-prometheus-stack');
  });

  it('PrometheusRule (CRD) carries the alert rules file as it is, only when enabled', () => {
    expect(byKind(defaults, 'PrometheusRule')).toEqual([]);
    const rule = byKind(production, 'PrometheusRule')[0];
    expect(rule.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(rule.metadata.labels?.release).toBe('kube-prometheus-stack');
    // Files in name order (Helm's Glob order), each file's groups as written.
    const groups = alertRuleFiles().flatMap(
      (f) => parse(fs.readFileSync(path.join(CHART, 'files', 'alerts', f), 'utf8')).groups,
    );
    expect(rule.spec).toEqual({ groups });
  });

  it('one Deployment per component with gRPC probes for services, HTTP probes for the gateway, hardened pods', () => {
    for (const ms of [defaults, production]) {
      for (const name of ['gateway', ...COMPONENTS] as const) {
        const d = named(ms, 'Deployment', name)!;
        expect(d).toBeDefined();
        const pod = d.spec.template.spec;
        const [c] = pod.containers;
        expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
        expect(c.securityContext).toMatchObject({
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        });
        expect(pod.automountServiceAccountToken).toBe(false);
        expect(d.spec.strategy.type).toBe('RollingUpdate');
        expect(c.resources.requests).toBeDefined();
        expect(c.resources.limits.memory).toBeDefined();
        if (name === 'gateway') {
          expect(c.livenessProbe.httpGet).toEqual({ path: '/health', port: 'http' });
          expect(c.readinessProbe.httpGet).toEqual({ path: '/ready', port: 'http' });
        } else {
          const grpcPort = DEFAULT_PORTS[name].grpc;
          for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'])
            expect(c[probe].grpc).toEqual({ port: grpcPort });
        }
      }
    }
    // With an HPA the Deployment leaves replicas to it.
    expect(named(production, 'Deployment', 'payments')!.spec.replicas).toBeUndefined();
    expect(named(defaults, 'Deployment', 'payments')!.spec.replicas).toBe(2);
  });

  it('NetworkPolicy: only the gateway takes outside traffic; services take the release; egress to MongoDB/NATS', () => {
    const releasePods = { 'app.kubernetes.io/name': 'partner-payments', 'app.kubernetes.io/instance': 'ppay' };
    for (const ms of [defaults, production]) {
      for (const name of ['gateway', ...COMPONENTS] as const) {
        const np = named(ms, 'NetworkPolicy', name)!;
        expect(np.spec.policyTypes).toEqual(['Ingress', 'Egress']);
        const egressPorts = np.spec.egress.flatMap((r: any) => r.ports.map((p: any) => p.port));
        expect(egressPorts).toEqual(expect.arrayContaining([53, 4222]));
        if (name === 'gateway') {
          expect(np.spec.ingress[0].ports).toEqual([{ port: 8080, protocol: 'TCP' }]);
          expect(egressPorts).not.toContain(27017);
        } else {
          const rule = np.spec.ingress[0];
          expect(rule.ports).toEqual([{ port: DEFAULT_PORTS[name].grpc, protocol: 'TCP' }]);
          expect(rule.from).toEqual([{ podSelector: { matchLabels: releasePods } }]);
          expect(egressPorts).toContain(27017);
        }
      }
    }
    // Production: the gateway only from the ingress controller, metrics only from monitoring.
    const gw = named(production, 'NetworkPolicy', 'gateway')!;
    expect(gw.spec.ingress[0].from).toEqual([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } },
    ]);
    expect(gw.spec.ingress[1]).toEqual({
      from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
      ports: [{ port: 9100, protocol: 'TCP' }],
    });
  });

  it('Ingress routes to the gateway Service only', () => {
    const [ing] = byKind(production, 'Ingress');
    const backends = ing.spec.rules.flatMap((r: any) => r.http.paths.map((p: any) => p.backend.service));
    const gwService = named(production, 'Service', 'gateway')!;
    expect(new Set(backends.map((b: unknown) => JSON.stringify(b)))).toEqual(
      new Set([JSON.stringify({ name: gwService.metadata.name, port: { name: 'http' } })]),
    );
  });

  it('keeps the admin API off the public ingress: public prefixes only, a covering path fails, an internal one on request (Hardening 2 item 8)', async () => {
    const ADMIN = '/api/v1/admin/kyc/submissions';
    // How nginx (and the Ingress spec) match a Prefix path: by whole path elements.
    const covers = (p: { path: string; pathType: string }) => {
      const path = p.path.replace(/\/$/, '');
      return p.pathType === 'Exact' ? path === ADMIN : path === '' || ADMIN === path || ADMIN.startsWith(`${path}/`);
    };
    const [ing] = byKind(production, 'Ingress');
    const paths = ing.spec.rules.flatMap((r: any) => r.http.paths);
    expect(paths.map((p: any) => p.path)).toEqual([
      '/api/v1/partner',
      '/api/v1/marketplace',
      '/checkout',
      '/onboarding',
      '/docs',
    ]);
    expect(paths.filter(covers)).toEqual([]);
    for (const path of ['/', '/api', '/api/v1/', '/api/v1/admin']) {
      const res = await helm([
        'template',
        'ppay',
        CHART,
        '--kube-version',
        '1.33.0',
        '-f',
        PRODUCTION_VALUES,
        '--set',
        `ingress.hosts[0].paths[0].path=${path}`,
      ]);
      expect([path, res.code, res.stderr]).toEqual([path, 1, expect.stringContaining('platform admin API')]);
    }
    const withAdmin = await renderChart([
      '-f',
      PRODUCTION_VALUES,
      '--set',
      'ingress.admin.enabled=true',
      '--set',
      'ingress.admin.className=nginx-internal',
      '--set',
      'ingress.admin.host=admin.payments.internal',
    ]);
    const admin = byKind(withAdmin, 'Ingress').find((i) => i.metadata.name.endsWith('-admin'))!;
    expect(validate(admin)).toMatchObject({ ok: true });
    expect(admin.spec.ingressClassName).toBe('nginx-internal');
    expect(admin.spec.rules).toEqual([
      {
        host: 'admin.payments.internal',
        http: {
          paths: [
            {
              path: '/api/v1/admin',
              pathType: 'Prefix',
              backend: {
                service: { name: named(production, 'Service', 'gateway')!.metadata.name, port: { name: 'http' } },
              },
            },
          ],
        },
      },
    ]);
    // The gateway is told the admin token policy.
    const config = named(production, 'ConfigMap', 'gateway')!.data;
    expect(config).toMatchObject({
      AUTH_ADMIN_AUDIENCE: 'ppay-admin',
      AUTH_ADMIN_REQUIRED_ACR: 'mfa',
      AUTH_ADMIN_MAX_AGE_SECONDS: '3600',
    });
    const tooLong = await helm([
      'template',
      'ppay',
      CHART,
      '--kube-version',
      '1.33.0',
      '--set',
      'gateway.auth.adminMaxAgeSeconds=7200',
    ]);
    expect([tooLong.code, tooLong.stderr]).toEqual([1, expect.stringContaining('adminMaxAgeSeconds')]);
  });

  it('creates the Secret only without existingSecret; every secret reference points at the right Secret', async () => {
    const [secret] = byKind(defaults, 'Secret');
    expect(Object.keys(secret.data).sort()).toEqual([
      'API_KEY_PEPPER',
      'AUTH_JWT_SECRET',
      'MONGODB_URI',
      'SECRETS_ENCRYPTION_KEY',
    ]);
    // Generated values have the shapes the services demand.
    expect(Buffer.from(Buffer.from(secret.data.SECRETS_ENCRYPTION_KEY, 'base64').toString(), 'base64')).toHaveLength(
      32,
    );
    expect(
      Buffer.from(Buffer.from(secret.data.API_KEY_PEPPER, 'base64').toString(), 'base64').length,
    ).toBeGreaterThanOrEqual(32);
    expect(secret.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
    const refs = (ms: Manifest[]) =>
      byKind(ms, 'Deployment').flatMap((d) =>
        (d.spec.template.spec.containers[0].env ?? []).map((e: any) => [
          d.metadata.labels!['app.kubernetes.io/component'],
          e.name,
          e.valueFrom.secretKeyRef.name,
        ]),
      );
    expect(new Set(refs(defaults).map((r) => r[2]))).toEqual(new Set([secret.metadata.name]));
    expect(new Set(refs(production).map((r) => r[2]))).toEqual(new Set(['partner-payments-secrets']));
    expect(
      refs(defaults)
        .filter((r) => r[0] === 'webhooks')
        .map((r) => r[1])
        .sort(),
    ).toEqual(['API_KEY_PEPPER', 'MONGODB_URI', 'SECRETS_ENCRYPTION_KEY', 'SECRETS_ENCRYPTION_PREVIOUS_KEYS']);
    expect(
      refs(defaults)
        .filter((r) => r[0] === 'kyc')
        .map((r) => r[1])
        .sort(),
      // Live connected accounts need only Stripe's API keys, never the endpoint secrets.
    ).toEqual([
      'MONGODB_URI',
      'SECRETS_ENCRYPTION_KEY',
      'SECRETS_ENCRYPTION_PREVIOUS_KEYS',
      'STRIPE_EU_PUBLISHABLE_KEY',
      'STRIPE_EU_SECRET_KEY',
      'STRIPE_PUBLISHABLE_KEY',
      'STRIPE_SECRET_KEY',
    ]);
    expect(
      refs(defaults)
        .filter((r) => r[0] === 'gateway')
        .map((r) => r[1])
        .sort(),
    ).toEqual(['AUTH_JWT_SECRET', 'SECRETS_ENCRYPTION_KEY', 'SECRETS_ENCRYPTION_PREVIOUS_KEYS']);
    // Stripe's keys travel in the Secret only when given; an EU key needs its Connect endpoint's secret.
    const stripe = ['processors.stripe.secretKey=sk_test_a1', 'processors.stripe.publishableKey=pk_test_a1'];
    const withEu = await renderChart([
      ...[...stripe, 'processors.stripe.webhookSecret=whsec_a1', 'processors.stripe.eu.secretKey=sk_test_e1'].flatMap(
        (v) => ['--set', v],
      ),
      ...[
        '--set',
        'processors.stripe.eu.webhookSecret=whsec_e1',
        '--set',
        'processors.stripe.eu.publishableKey=pk_test_e1',
      ],
      ...['--show-only', 'templates/secret.yaml'],
    ]);
    expect(Buffer.from(withEu[0].data.STRIPE_EU_SECRET_KEY, 'base64').toString()).toBe('sk_test_e1');
    expect(Buffer.from(withEu[0].data.STRIPE_EU_WEBHOOK_SECRET, 'base64').toString()).toBe('whsec_e1');
    expect(Buffer.from(withEu[0].data.STRIPE_EU_PUBLISHABLE_KEY, 'base64').toString()).toBe('pk_test_e1');
    expect(secret.data.STRIPE_EU_SECRET_KEY).toBeUndefined();
    await expect(
      renderChart([
        ...[...stripe, 'processors.stripe.webhookSecret=whsec_a1', 'processors.stripe.eu.secretKey=sk_test_e1'].flatMap(
          (v) => ['--set', v],
        ),
        ...['--set', 'processors.stripe.eu.publishableKey=pk_test_e1', '--show-only', 'templates/secret.yaml'],
      ]),
    ).rejects.toThrow(/eu.webhookSecret is required/);
    // Given values are used as they are.
    const key = Buffer.alloc(32, 7).toString('base64');
    const given = await renderChart(['--set', `secrets.encryptionKey=${key}`, '--show-only', 'templates/secret.yaml']);
    expect(Buffer.from(given[0].data.SECRETS_ENCRYPTION_KEY, 'base64').toString()).toBe(key);
    // After a rotation the older keys travel in the Secret too (Hardening 2 item 9); never without one.
    expect(given[0].data.SECRETS_ENCRYPTION_PREVIOUS_KEYS).toBeUndefined();
    const ring = `k0:${Buffer.alloc(32, 3).toString('base64')}`;
    const rotated = await renderChart([
      '--set',
      `secrets.previousEncryptionKeys=${ring}`,
      '--show-only',
      'templates/secret.yaml',
    ]);
    expect(Buffer.from(rotated[0].data.SECRETS_ENCRYPTION_PREVIOUS_KEYS, 'base64').toString()).toBe(ring);
    const optional = byKind(defaults, 'Deployment')
      .flatMap((d) => d.spec.template.spec.containers[0].env ?? [])
      .filter((e: any) => e.name === 'SECRETS_ENCRYPTION_PREVIOUS_KEYS');
    expect(optional.map((e: any) => e.valueFrom.secretKeyRef.optional)).toEqual([true, true, true]);
  });

  it('NOTES.txt renders for the default and the production values', async () => {
    // helm only renders NOTES.txt on install (needs a cluster): render it as a template of a copy.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ppay-notes-'));
    try {
      fs.cpSync(CHART, dir, { recursive: true });
      const notes = fs.readFileSync(path.join(dir, 'templates', 'NOTES.txt'), 'utf8');
      fs.rmSync(path.join(dir, 'templates', 'NOTES.txt'));
      fs.writeFileSync(
        path.join(dir, 'templates', '_notes.tpl'),
        `{{- define "notes-test" -}}\n${notes}\n{{- end -}}\n`,
      );
      fs.writeFileSync(
        path.join(dir, 'templates', 'notes-test.yaml'),
        'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: notes }\ndata:\n  notes: {{ include "notes-test" . | quote }}\n',
      );
      const render = async (args: string[]) => {
        const res = await helm([
          'template',
          'ppay',
          dir,
          '-n',
          'payments',
          '--kube-version',
          '1.33.0',
          '--show-only',
          'templates/notes-test.yaml',
          ...args,
        ]);
        expect(res.stderr).toBe('');
        return (parse(res.stdout) as Manifest).data.notes as string;
      };
      const plain = await render([]);
      expect(plain).toContain('kubectl -n payments port-forward svc/ppay-partner-payments-gateway 8080:8080');
      expect(plain).toContain('ppay-partner-payments-payments  gRPC :50051, metrics :9101');
      const prod = await render(['-f', PRODUCTION_VALUES]);
      expect(prod).toContain('https://api.payments.example.com/docs');
      expect(prod).toContain('existing Secret "partner-payments-secrets"');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['an unknown component', ['--set', 'components.ledger.kind=grpc'], "additional properties 'ledger' not allowed"],
    ['a port out of range', ['--set', 'components.payments.ports.grpc=70000'], '/components/payments/ports/grpc'],
    ['a negative replica count', ['--set', 'componentDefaults.replicas=-1'], '/componentDefaults/replicas'],
    ['an invalid pull policy', ['--set', 'image.pullPolicy=Sometimes'], '/image/pullPolicy'],
    ['an encryption key that is not 32 bytes', ['--set', 'secrets.encryptionKey=c2hvcnQ='], '/secrets/encryptionKey'],
    ['a typo in a top-level key', ['--set', 'ingres.enabled=true'], "additional properties 'ingres' not allowed"],
    ['a non-MongoDB URI', ['--set', 'mongodb.uri=postgres://db'], '/mongodb/uri'],
    [
      'privilege escalation',
      ['--set', 'securityContext.allowPrivilegeEscalation=true'],
      '/securityContext/allowPrivilegeEscalation',
    ],
    ['a wrong component kind', ['--set', 'components.gateway.kind=grpc'], '/components/gateway/kind'],
    ['trusting any proxy', ['--set-string', 'gateway.trustProxy=true'], '/gateway/trustProxy'],
  ])('values.schema.json rejects %s', async (_what, args, message) => {
    const res = await helm(['template', 'ppay', CHART, '--kube-version', '1.33.0', ...args]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain(message);
  });
});
