import { alertRules, dashboardQueries, exportedNames, metricNamesIn, metricNamesInVariableQuery } from './promql';

describe('PromQL metric-name extraction (used by the dashboards test)', () => {
  it.each([
    [
      'sum by (method, route) (rate(ppay_http_requests_total{route=~"$route"}[$__rate_interval]))',
      ['ppay_http_requests_total'],
    ],
    [
      'histogram_quantile(0.95, sum by (le, grpc_service) (rate(ppay_grpc_server_handling_seconds_bucket{component=~"a|b"}[5m])))',
      ['ppay_grpc_server_handling_seconds_bucket'],
    ],
    [
      'sum(rate(a_total[1m])) by (x) / on (x) group_left(y) sum without (z) (b_total offset 5m)',
      ['a_total', 'b_total'],
    ],
    ['rate(x_total[5m:30s]) > bool 0.5 and ignoring(job) up == 1e3', ['x_total', 'up']],
    [
      'max by (component) (ppay_nodejs_eventloop_lag_seconds{component=~"$component", le!="+Inf"})',
      ['ppay_nodejs_eventloop_lag_seconds'],
    ],
    [
      'changes(ppay_process_start_time_seconds[1h]) + count(vector(1)) - absent(foo_bar)',
      ['ppay_process_start_time_seconds', 'foo_bar'],
    ],
    ['sum (rate (m1[${__interval}])) or label_replace(m2, "dst", "$1", "src", "(.*)")', ['m1', 'm2']],
    ['{__name__="ignored_because_string"} + inf - nan', []],
  ])('%s', (expr, names) => {
    expect(metricNamesIn(expr).sort()).toEqual([...names].sort());
  });

  it('reads metric names from Grafana variable queries', () => {
    expect(
      metricNamesInVariableQuery('label_values(ppay_grpc_server_handled_total{component=~"$c"}, grpc_method)'),
    ).toEqual(['ppay_grpc_server_handled_total']);
    expect(metricNamesInVariableQuery('label_values(component)')).toEqual([]);
  });

  it('treats histogram and summary series as exported from their # TYPE line', () => {
    const names = exportedNames(
      ['# HELP h_seconds x', '# TYPE h_seconds histogram', '# TYPE s summary', 'c_total{a="1"} 3', 'g 1'].join('\n'),
    );
    expect([...names].sort()).toEqual([
      'c_total',
      'g',
      'h_seconds',
      'h_seconds_bucket',
      'h_seconds_count',
      'h_seconds_sum',
      's',
      's_count',
      's_sum',
    ]);
  });

  it('every dashboard panel has PromQL naming at least one metric, on the provisioned Prometheus data source', () => {
    const queries = dashboardQueries();
    expect(new Set(queries.map((q) => q.dashboard))).toEqual(
      new Set([
        'gateway.json',
        'grpc.json',
        'messaging.json',
        'money.json',
        'node.json',
        'onboarding.json',
        'subscriptions.json',
      ]),
    );
    for (const q of queries) expect([q.dashboard, q.panel, q.names.length > 0]).toEqual([q.dashboard, q.panel, true]);
    // Only metric names with the platform prefix (no copy-pasted panels from other stacks).
    const names = new Set(queries.flatMap((q) => q.names));
    expect([...names].filter((n) => !n.startsWith('ppay_'))).toEqual([]);
  });

  it('every alert rule names platform metrics, has a severity, a summary and a description', () => {
    const rules = alertRules();
    expect(rules.map((r) => r.alert)).toEqual(
      expect.arrayContaining([
        'PpayOutboxDeadLetters',
        'PpayOutboxLagging',
        'PpayLedgerRepairs',
        'PpayConsumerRedelivering',
        'KycReviewOverdue',
        'PpayProcessorAuthFailures',
        'PpayProcessorSignatureFailures',
        'PpayProcessorEventMismatch',
        'PpayProcessorEventsNotApplied',
        'PpayProcessorEventsMissed',
        'PpayLiveChargesPendingTooLong',
      ]),
    );
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
    for (const r of rules) {
      const names = metricNamesIn(r.expr);
      expect([r.alert, names.length > 0, names.every((n) => n.startsWith('ppay_'))]).toEqual([r.alert, true, true]);
      expect([r.alert, ['critical', 'warning'].includes(r.labels?.severity)]).toEqual([r.alert, true]);
      expect([r.alert, typeof r.annotations?.summary, typeof r.annotations?.description]).toEqual([
        r.alert,
        'string',
        'string',
      ]);
    }
    // The KYC review promise is 24 hours (spec 4.9): the alert must fire before it is broken.
    const overdue = rules.find((r) => r.alert === 'KycReviewOverdue')!;
    expect(metricNamesIn(overdue.expr)).toEqual(['ppay_kyc_review_queue_oldest_age_seconds']);
    expect(overdue.expr).toMatch(/mode="live"/);
    // The live card gateway's alerts watch what the issue asks for: signatures, mismatches, keys, pending charges.
    const processorMetrics = rules.filter((r) => r.file === 'processors.yml').flatMap((r) => metricNamesIn(r.expr));
    expect(new Set(processorMetrics)).toEqual(
      new Set([
        'ppay_processor_auth_failures_total',
        'ppay_processor_events_total',
        'ppay_live_charge_lookups_total',
        'ppay_live_charges_pending_stale',
      ]),
    );
  });
});
