import { randomBase62 } from '@ppay/kernel';
import { signWebhook, WEBHOOK_HEADERS } from '@ppay/webhooks-receiver';

/**
 * `npm run merchant -- listen`: streams the key's events from the gateway (GET /events/stream,
 * Server-Sent Events) and forwards each to a local URL the way a real delivery arrives: the same
 * body bytes, the same headers, the spec and V2 signatures — made with a secret generated for this
 * session only, so the platform never signs anything for the CLI and a leaked session secret is
 * worthless once the CLI stops. Signing is the receiver SDK's `signWebhook` (the one the SDK's
 * vectors pin to the platform's algorithm), not a copy.
 */
export interface ListenOptions {
  apiKey: string;
  forwardTo: string;
  gateway: string;
  types: string[];
  /** Reconnect delay after the stream drops (not for refused keys). */
  reconnectMs?: number;
  /** Per forward, like a real delivery (spec 6.3). */
  timeoutMs?: number;
  signal?: AbortSignal;
  out?: (line: string) => void;
  err?: (line: string) => void;
}

export interface StreamFrame {
  id?: string;
  event: string;
  data: string;
}

export interface ForwardedEvent {
  event_id: string;
  event_type: string;
  api_version: string;
  body: string;
}

/** Same header set as services/webhooks/src/deliveries/signed-request.ts; the user agent says it is the CLI. */
export const LISTEN_USER_AGENT = 'ppay-webhooks/1.0 (listen)';

export function generateSessionSecret(): string {
  return `whsec_${randomBase62(32)}`;
}

export function forwardHeaders(e: ForwardedEvent, secret: string, unixSeconds: number): Record<string, string> {
  const signatures = signWebhook(e.body, secret, unixSeconds);
  return {
    'content-type': 'application/json',
    'user-agent': LISTEN_USER_AGENT,
    [WEBHOOK_HEADERS.event.toLowerCase()]: e.event_type,
    [WEBHOOK_HEADERS.eventId.toLowerCase()]: e.event_id,
    [WEBHOOK_HEADERS.apiVersion.toLowerCase()]: e.api_version,
    [WEBHOOK_HEADERS.signature.toLowerCase()]: signatures['X-Service-Signature'],
    [WEBHOOK_HEADERS.timestamp.toLowerCase()]: signatures['X-Service-Timestamp'],
    [WEBHOOK_HEADERS.signatureV2.toLowerCase()]: signatures['X-Service-Signature-V2'],
  };
}

/**
 * Incremental SSE parser (the subset the gateway sends: `id`, `event`, `data`, comments). Feed it
 * text chunks; it returns the frames completed so far. A frame without data (the `ready` frame has
 * `{}`) still updates `id`, as in the EventSource spec.
 */
export class SseParser {
  private buffer = '';
  private frame: { id?: string; event?: string; data: string[] } = { data: [] };

  push(chunk: string): StreamFrame[] {
    this.buffer += chunk;
    const frames: StreamFrame[] = [];
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      if (line === '') {
        if (this.frame.data.length || this.frame.id !== undefined) {
          frames.push({ id: this.frame.id, event: this.frame.event ?? 'message', data: this.frame.data.join('\n') });
        }
        this.frame = { data: [] };
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') this.frame.data.push(value);
      else if (field === 'event') this.frame.event = value;
      else if (field === 'id') this.frame.id = value;
    }
    return frames;
  }
}

export interface ForwardResult {
  status: number | null;
  latencyMs: number;
  error?: string;
}

/** POSTs the exact bytes; redirects are not followed (a failure, as for real deliveries). */
export async function forward(
  url: string,
  e: ForwardedEvent,
  secret: string,
  timeoutMs: number,
): Promise<ForwardResult> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: forwardHeaders(e, secret, Math.floor(Date.now() / 1000)),
      body: e.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status, latencyMs: Math.round(performance.now() - started) };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    const error = e.name === 'TimeoutError' ? 'timeout' : (e.cause?.code ?? e.message);
    return { status: null, latencyMs: Math.round(performance.now() - started), error };
  }
}

export function eventLine(at: Date, e: Pick<ForwardedEvent, 'event_type' | 'event_id'>, r: ForwardResult): string {
  const outcome = r.status !== null ? `[${r.status}]` : `[${r.error ?? 'error'}]`;
  return `${at.toISOString()}  ${e.event_type.padEnd(26)}  ${e.event_id}  ${outcome.padEnd(6)}  ${r.latencyMs} ms`;
}

class StreamRefused extends Error {}

/**
 * Runs until `signal` aborts or the gateway refuses the key. Returns the exit code: 0 when stopped,
 * 1 when refused. Drops reconnect (after `reconnectMs`) from the last frame id, so no event is lost.
 */
export async function listen(o: ListenOptions): Promise<number> {
  const out = o.out ?? ((l: string) => process.stdout.write(`${l}\n`));
  const err = o.err ?? ((l: string) => process.stderr.write(`${l}\n`));
  const secret = generateSessionSecret();
  const url = new URL('/api/v1/partner/events/stream', o.gateway);
  if (o.types.length) url.searchParams.set('type', o.types.join(','));
  let lastId: string | undefined;
  let announced = false;
  while (!o.signal?.aborted) {
    try {
      const res = await fetch(url, {
        headers: {
          'x-api-key': o.apiKey,
          accept: 'text/event-stream',
          ...(lastId ? { 'last-event-id': lastId } : {}),
        },
        signal: o.signal,
      });
      if (res.status !== 200 || !res.body) {
        const text = await res.text().catch(() => '');
        const message = describeError(res.status, text);
        if (res.status === 401 || res.status === 400 || res.status === 403) throw new StreamRefused(message);
        throw new Error(message);
      }
      if (!announced) {
        announced = true;
        out(`Ready! Forwarding ${o.apiKey.startsWith('pk_live_') ? 'live' : 'sandbox'} events to ${o.forwardTo}`);
        out(`Your webhook signing secret for this session is ${secret} (shown once; verify with it while listening)`);
      }
      const parser = new SseParser();
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        for (const frame of parser.push(decoder.decode(chunk, { stream: true }))) {
          if (frame.event === 'error') {
            const { code, message } = JSON.parse(frame.data) as { code: string; message: string };
            if (code === 'INVALID_API_KEY') throw new StreamRefused(`${code}: ${message}`);
            throw new Error(`${code}: ${message}`);
          }
          if (frame.event !== 'ready' && frame.data) {
            const event = JSON.parse(frame.data) as ForwardedEvent;
            const result = await forward(o.forwardTo, event, secret, o.timeoutMs ?? 10_000);
            out(eventLine(new Date(), event, result));
          }
          // Only after forwarding: a drop mid-forward resumes with this event again (at least once).
          if (frame.id) lastId = frame.id;
        }
      }
      if (!o.signal?.aborted) err('Stream ended; reconnecting…');
    } catch (e) {
      if (o.signal?.aborted) break;
      if (e instanceof StreamRefused) {
        err(`listen: ${e.message}`);
        return 1;
      }
      err(`listen: ${(e as Error).message}; reconnecting…`);
    }
    await new Promise((resolve) => setTimeout(resolve, o.reconnectMs ?? 2_000));
  }
  return 0;
}

function describeError(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { message?: string; error?: { code?: string; message?: string } };
    const code = body.error?.code;
    const message = body.error?.message ?? body.message ?? text;
    return `HTTP ${status}${code ? ` ${code}` : ''}: ${message}`;
  } catch {
    return `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ''}`;
  }
}
