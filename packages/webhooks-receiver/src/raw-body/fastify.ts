type ParserDone = (err: Error | null, body?: unknown) => void;
type PoisoningAction = 'error' | 'remove' | 'ignore';

/**
 * The part of a Fastify instance this helper uses, declared here so the package needs no
 * dependency on fastify. A real `FastifyInstance` satisfies it.
 */
export interface FastifyRawBodyTarget {
  addContentTypeParser(
    contentType: string,
    opts: { parseAs: 'buffer' },
    parser: (request: any, body: Buffer, done: ParserDone) => void,
  ): void;
  getDefaultJsonParser?(
    onProtoPoisoning: PoisoningAction,
    onConstructorPoisoning: PoisoningAction,
  ): (request: any, body: string, done: ParserDone) => void;
  initialConfig?: { onProtoPoisoning?: PoisoningAction; onConstructorPoisoning?: PoisoningAction };
}

/** A request that went through `registerFastifyRawBody` or `expressRawBody`. */
export interface WithRawBody {
  rawBody: Buffer;
}

/**
 * Replaces the `application/json` parser of `app` (and the plugins registered inside it) with
 * one that keeps the exact bytes in `request.rawBody` and still fills `request.body` with
 * Fastify's own JSON parser, so body limits, empty-body and prototype-poisoning handling are
 * unchanged. Register it inside the plugin that holds the webhook route to keep the extra
 * Buffer off every other route.
 */
export function registerFastifyRawBody(app: FastifyRawBodyTarget): void {
  const parseJson =
    app.getDefaultJsonParser?.(
      app.initialConfig?.onProtoPoisoning ?? 'error',
      app.initialConfig?.onConstructorPoisoning ?? 'error',
    ) ?? plainJsonParser;
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    (request as WithRawBody).rawBody = body;
    // Fastify's parser is typed for (and would itself produce) the decoded string.
    parseJson(request, body.toString('utf8'), done);
  });
}

/** Only for Fastify-like frameworks without `getDefaultJsonParser`. */
function plainJsonParser(_request: unknown, body: string, done: ParserDone): void {
  if (body.length === 0) {
    done(Object.assign(new Error('Body cannot be empty when content-type is application/json'), { statusCode: 400 }));
    return;
  }
  try {
    done(null, JSON.parse(body));
  } catch {
    done(Object.assign(new Error('Body is not valid JSON'), { statusCode: 400 }));
  }
}
