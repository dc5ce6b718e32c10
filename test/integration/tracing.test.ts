import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually, http as request, startTestPlatform, type TestPlatform } from '../support/platform';

interface CollectedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
}

/** A minimal OTLP/HTTP JSON receiver standing in for the collector. */
function startCollector(): Promise<{ server: http.Server; url: string; spans: CollectedSpan[] }> {
  const spans: CollectedSpan[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      try {
        const payload = JSON.parse(body) as {
          resourceSpans: {
            resource: { attributes: { key: string; value: { stringValue?: string } }[] };
            scopeSpans: { spans: Omit<CollectedSpan, 'service'>[] }[];
          }[];
        };
        for (const rs of payload.resourceSpans ?? []) {
          const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '?';
          for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ ...s, service });
        }
      } catch {
        // not JSON: ignore
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans }),
    ),
  );
}

describe('distributed tracing', () => {
  let t: TestPlatform;
  let collector: Awaited<ReturnType<typeof startCollector>>;

  beforeAll(async () => {
    collector = await startCollector();
    t = await startTestPlatform('tracing', {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    });
  });
  afterAll(async () => {
    await t?.stop();
    collector?.server.close();
  });

  it('one trace spans the gateway request, the gRPC call, the service and the NATS publish it caused', async () => {
    const m = await t.merchant();
    const res = await request(t.url, 'POST', '/api/v1/partner/create-api-key', {
      headers: { 'x-id-key': m.user_token },
      body: { name: 'traced' },
    });
    expect(res.status).toBe(201);

    const find = () => {
      const server = collector.spans.find(
        (s) => s.service === 'ppay-gateway' && s.kind === 2 && /POST/.test(s.name) && !s.parentSpanId,
      );
      if (!server) return undefined;
      const trace = collector.spans.filter((s) => s.traceId === server.traceId);
      return { server, trace };
    };
    const complete = () => {
      const found = find();
      return Boolean(
        found?.trace.some((s) => s.service === 'ppay-webhooks' && s.name.includes('CreateApiKey')) &&
        found.trace.some((s) => s.service === 'ppay-webhooks' && s.name === 'publish apikeys.created'),
      );
    };
    expect(await eventually(async () => complete(), 10_000, 100)).toBe(true);
    const { trace } = find()!;
    const client = trace.find((s) => s.service === 'ppay-gateway' && s.name.includes('WebhooksService/CreateApiKey'));
    const handled = trace.find((s) => s.service === 'ppay-webhooks' && s.name.includes('CreateApiKey'));
    const publish = trace.find((s) => s.name === 'publish apikeys.created');
    expect(client).toBeDefined();
    expect(handled!.parentSpanId).toBe(client!.spanId);
    expect(publish!.service).toBe('ppay-webhooks');
  });
});
