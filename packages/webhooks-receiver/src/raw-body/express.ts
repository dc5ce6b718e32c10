import type { IncomingMessage, ServerResponse } from 'node:http';

export interface ExpressRawBodyOptions {
  /** Largest body accepted, in bytes; bigger ones get 413. Default 1 MiB. */
  limit?: number;
}

/** What the middleware reads and writes on the request; Express's `Request` satisfies it. */
export type RawBodyIncomingMessage = IncomingMessage & { rawBody?: Buffer; body?: unknown };

export type RawBodyMiddleware = (
  req: RawBodyIncomingMessage,
  res: ServerResponse,
  next: (err?: unknown) => void,
) => void;

const DEFAULT_LIMIT = 1024 * 1024;

/**
 * Express (or plain node:http) middleware that reads the request into `req.rawBody` without
 * parsing it: verify with `verifyWebhook(req.rawBody, req.headers, …)` and use the event it
 * returns. Mount it on the webhook route before any JSON body parser, which would consume the
 * stream; if `express.raw()` or a `verify` hook already kept the bytes, they are reused.
 */
export function expressRawBody(options: ExpressRawBodyOptions = {}): RawBodyMiddleware {
  const limit = options.limit ?? DEFAULT_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 0) throw new TypeError('limit must be a non-negative integer');

  return function rawBodyMiddleware(req, res, next) {
    if (Buffer.isBuffer(req.rawBody)) return next();
    if (Buffer.isBuffer(req.body)) {
      req.rawBody = req.body;
      return next();
    }
    if (req.readableEnded) {
      return next(new Error('The request body was already read: mount expressRawBody before any body parser'));
    }
    if (Number(req.headers['content-length']) > limit) return tooLarge(req, res, limit);

    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        settled = true;
        chunks.length = 0;
        tooLarge(req, res, limit);
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => {
      if (settled) return;
      settled = true;
      req.rawBody = Buffer.concat(chunks, size);
      next();
    });
    req.once('error', (err) => {
      if (settled) return;
      settled = true;
      next(err);
    });
  };
}

/**
 * Answers 413 and discards the rest of the upload (rather than destroying the socket) so the
 * sender actually receives the status; `connection: close` stops the socket being reused.
 */
function tooLarge(req: IncomingMessage, res: ServerResponse, limit: number): void {
  req.resume();
  if (res.headersSent) return;
  res.statusCode = 413;
  res.setHeader('content-type', 'application/json');
  res.setHeader('connection', 'close');
  res.end(JSON.stringify({ error: 'payload_too_large', message: `Body exceeds ${limit} bytes` }));
}
