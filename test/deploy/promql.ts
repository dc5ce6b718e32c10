import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';

/** PromQL functions, aggregations, keywords and literals that look like identifiers but are not metrics. */
const NOT_METRICS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'offset',
  'and',
  'or',
  'unless',
  'atan2',
  'inf',
  'nan',
  'start',
  'end',
]);

/**
 * Metric names referenced by a PromQL expression (Grafana variables allowed). Ignores function and
 * aggregation names (identifiers followed by "("), keywords, label matchers inside {...}, label lists
 * of by/without/on/ignoring/group_left/group_right, range/offset durations, numbers and strings.
 */
export function metricNamesIn(expr: string): string[] {
  let s = expr;
  s = s.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' '); // string literals
  s = s.replace(/\$\{[^}]*\}|\$\w+|\[\[\w+\]\]/g, ' '); // Grafana variables ($__rate_interval, ${x}, [[x]])
  s = s.replace(/\{[^}]*\}/g, ' '); // label matchers
  s = s.replace(/\[[^\]]*\]/g, ' '); // range selectors and subqueries
  s = s.replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' '); // label lists
  s = s.replace(/\boffset\s+-?[0-9a-z]+/g, ' '); // offset modifiers
  s = s.replace(/@\s*[0-9.]+|@\s*(start|end)\s*\(\s*\)/g, ' '); // @ modifiers
  const names = new Set<string>();
  const ident = /(?<![\w.:])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g;
  for (const m of s.matchAll(ident)) {
    const [, name, call] = m;
    if (call) continue; // function or aggregation
    if (NOT_METRICS.has(name.toLowerCase())) continue;
    if (/^[0-9]/.test(name)) continue;
    names.add(name);
  }
  // Numbers such as 1e3 or 0x1f begin with a digit and were never matched; a bare "e3" cannot occur.
  return [...names];
}

/** Metric names a Grafana `label_values(metric, label)` / `query_result(expr)` / `metrics(re)` variable names. */
export function metricNamesInVariableQuery(query: string): string[] {
  const lv = /^\s*label_values\s*\((.*)\)\s*$/s.exec(query);
  if (lv) {
    const inner = lv[1];
    // label_values(label) has no metric; label_values(selector, label) has one.
    const lastComma = inner.lastIndexOf(',');
    return lastComma < 0 ? [] : metricNamesIn(inner.slice(0, lastComma));
  }
  const qr = /^\s*query_result\s*\((.*)\)\s*$/s.exec(query);
  if (qr) return metricNamesIn(qr[1]);
  return [];
}

export interface DashboardQuery {
  dashboard: string;
  panel: string;
  expr: string;
  names: string[];
}

export const DASHBOARD_DIR = path.resolve(__dirname, '..', '..', 'deploy', 'grafana', 'dashboards');

/** Every PromQL expression of every dashboard JSON (panels, nested row panels, template variables). */
export function dashboardQueries(dir = DASHBOARD_DIR): DashboardQuery[] {
  const out: DashboardQuery[] = [];
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const dash = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    const walk = (panels: any[]) => {
      for (const p of panels ?? []) {
        for (const t of p.targets ?? []) {
          if (typeof t.expr === 'string')
            out.push({ dashboard: file, panel: p.title, expr: t.expr, names: metricNamesIn(t.expr) });
        }
        walk(p.panels);
      }
    };
    walk(dash.panels);
    for (const v of dash.templating?.list ?? []) {
      const q = typeof v.query === 'string' ? v.query : v.query?.query;
      if (v.type === 'query' && typeof q === 'string') {
        out.push({ dashboard: file, panel: `variable $${v.name}`, expr: q, names: metricNamesInVariableQuery(q) });
      }
    }
  }
  return out;
}

/**
 * Metric names a Prometheus text exposition makes queryable: every sample name plus, from the
 * # TYPE lines, histogram (_bucket/_sum/_count) and summary (_sum/_count) series names, so a
 * declared metric counts even before its first observation.
 */
export function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      const [, name, kind] = type;
      names.add(name);
      if (kind === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
      if (kind === 'summary') for (const suffix of ['_sum', '_count']) names.add(name + suffix);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[\s{]/.exec(line);
    if (sample) names.add(sample[1]);
  }
  return names;
}

/** The alert rule files: one copy in the chart, rendered as its PrometheusRule and mounted by compose. */
export const ALERT_RULES_DIR = path.resolve(__dirname, '..', '..', 'helm', 'partner-payments', 'files', 'alerts');

export interface AlertRule {
  file: string;
  group: string;
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** Every alert rule of every file in the rules directory. */
export function alertRules(dir = ALERT_RULES_DIR): AlertRule[] {
  return alertRuleFiles(dir).flatMap((file) => {
    const doc = parse(fs.readFileSync(path.join(dir, file), 'utf8')) as {
      groups: { name: string; rules: Omit<AlertRule, 'group' | 'file'>[] }[];
    };
    return doc.groups.flatMap((g) => g.rules.map((r) => ({ ...r, file, group: g.name, expr: String(r.expr) })));
  });
}

export function alertRuleFiles(dir = ALERT_RULES_DIR): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yml'))
    .sort();
}

/** Alert expressions in the shape of dashboard queries, so one check covers both. */
export function alertQueries(dir = ALERT_RULES_DIR): DashboardQuery[] {
  return alertRules(dir).map((r) => ({
    dashboard: r.file,
    panel: `alert ${r.alert}`,
    expr: r.expr,
    names: metricNamesIn(r.expr),
  }));
}
