import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { COMPONENTS } from '@ppay/kernel';
import { dashboardQueries, exportedNames, metricNamesIn } from '../deploy/promql';
import { http, startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * The Grafana dashboards (deploy/grafana/dashboards/*.json) only query metrics the platform really
 * exports: every metric name in every panel's PromQL (and in every template variable query) must
 * appear on the /metrics endpoint of at least one running process.
 */
const ALERTS = path.resolve(__dirname, '..', '..', 'deploy', 'prometheus', 'alerts.yml');

describe('Grafana dashboards', () => {
  let t: TestPlatform;

  beforeAll(async () => {
    t = await startTestPlatform('dashboards');
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('name only metrics that the running processes export', async () => {
    // Traffic through the gateway (HTTP → gRPC client → service) so labelled series exist too.
    const m = await t.merchant();
    for (let i = 0; i < 3; i++) {
      const res = await http(t.url, 'GET', '/api/v1/partner/account', { headers: { 'x-api-key': m.api_key } });
      expect(res.status).toBe(200);
    }
    expect((await http(t.url, 'GET', '/api/v1/partner/account', { headers: { 'x-api-key': 'nope' } })).status).toBe(
      401,
    );

    const exported = new Set<string>();
    const perProcess: Record<string, number> = {};
    for (const name of ['gateway', ...COMPONENTS] as const) {
      const res = await fetch(t.platform.metricsUrl(name));
      expect([name, res.status]).toEqual([name, 200]);
      const names = exportedNames(await res.text());
      perProcess[name] = names.size;
      for (const n of names) exported.add(n);
    }
    // Sanity: the collection saw the samples the traffic produced and every process's defaults.
    for (const n of [
      'ppay_http_requests_total',
      'ppay_http_request_duration_seconds_bucket',
      'ppay_grpc_server_handled_total',
      'ppay_grpc_client_handling_seconds_bucket',
      'ppay_process_cpu_seconds_total',
    ]) {
      expect([n, exported.has(n)]).toEqual([n, true]);
    }
    for (const [name, count] of Object.entries(perProcess)) expect([name, count > 20]).toEqual([name, true]);

    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThan(20);
    const missing = queries.flatMap((q) =>
      q.names.filter((n) => !exported.has(n)).map((n) => `${q.dashboard} › ${q.panel}: ${n}  (in: ${q.expr})`),
    );
    expect(missing).toEqual([]);

    // The same holds for the Prometheus alert rules.
    const rules = parse(fs.readFileSync(ALERTS, 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] };
    const alerts = rules.groups.flatMap((g) => g.rules);
    expect(alerts.length).toBeGreaterThan(0);
    const unknown = alerts.flatMap((r) =>
      metricNamesIn(r.expr)
        .filter((n) => !exported.has(n))
        .map((n) => `${r.alert}: ${n}`),
    );
    expect(unknown).toEqual([]);
  });
});
