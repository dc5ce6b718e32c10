import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KV } from 'nats';
import { PlatformError } from '@ppay/kernel';

/**
 * `Idempotency-Key` on every partner POST (Stripe semantics): the first response (2xx or 4xx) is
 * kept for 24 h and replayed for the same key with `Idempotent-Replayed: true`; the same key with a
 * different request is refused (422); a retry while the first request is still running gets 409.
 * 5xx answers are not kept, so a retry after an outage can succeed.
 *
 * The gateway owns no database: records live in a NATS JetStream key-value bucket whose TTL is the
 * retention, and `create` / compare-and-set `update` make claiming a key atomic across replicas.
 */
export const IDEMPOTENCY_BUCKET = 'IDEMPOTENCY';
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A claim older than this belongs to a request that died; a retry may take it over. */
const ABANDONED_AFTER_MS = 60_000;
const MAX_KEY_LENGTH = 255;

interface StoredRecord {
  state: 'in_flight' | 'done';
  fingerprint: string;
  started_at: number;
  status?: number;
  body?: string;
  content_type?: string;
}

interface Claim {
  kvKey: string;
  revision: number;
  fingerprint: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim?: Claim;
  }
}

const encode = (r: StoredRecord) => new TextEncoder().encode(JSON.stringify(r));
const decode = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes)) as StoredRecord;

/** Order-independent JSON so {"a":1,"b":2} and {"b":2,"a":1} are the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export class IdempotencyStore {
  constructor(private readonly kv: KV) {}

  async begin(
    kvKey: string,
    fingerprint: string,
  ): Promise<{ kind: 'claimed'; claim: Claim } | { kind: 'replay'; record: StoredRecord }> {
    const fresh: StoredRecord = { state: 'in_flight', fingerprint, started_at: Date.now() };
    try {
      return { kind: 'claimed', claim: { kvKey, fingerprint, revision: await this.kv.create(kvKey, encode(fresh)) } };
    } catch {
      // The key exists (or was deleted after a 5xx): look at what is there.
    }
    const entry = await this.kv.get(kvKey);
    if (!entry || entry.operation !== 'PUT') {
      return {
        kind: 'claimed',
        claim: { kvKey, fingerprint, revision: await this.kv.update(kvKey, encode(fresh), entry?.revision ?? 0) },
      };
    }
    const record = decode(entry.value);
    if (record.fingerprint !== fingerprint) {
      throw new PlatformError('IDEMPOTENCY_KEY_REUSED', undefined, {
        param: 'Idempotency-Key',
        detail: 'keys are single-use: send a new key for a different request',
      });
    }
    if (record.state === 'done') return { kind: 'replay', record };
    if (Date.now() - record.started_at < ABANDONED_AFTER_MS) throw new PlatformError('IDEMPOTENCY_IN_FLIGHT');
    try {
      return {
        kind: 'claimed',
        claim: { kvKey, fingerprint, revision: await this.kv.update(kvKey, encode(fresh), entry.revision) },
      };
    } catch {
      throw new PlatformError('IDEMPOTENCY_IN_FLIGHT');
    }
  }

  /**
   * Keeps the answer, except a 5xx (a retry after an outage must run again) and a response marked
   * `Cache-Control: no-store` (it carries a secret shown once — an API key, a client_secret — which
   * must never sit in an idempotency record): a retry then runs again and issues a fresh one.
   */
  async complete(
    claim: Claim,
    status: number,
    body: string,
    contentType: string | undefined,
    noStore = false,
  ): Promise<void> {
    if (status >= 500 || noStore) {
      await this.kv.delete(claim.kvKey);
      return;
    }
    const record: StoredRecord = {
      state: 'done',
      fingerprint: claim.fingerprint,
      started_at: Date.now(),
      status,
      body,
      content_type: contentType,
    };
    await this.kv.update(claim.kvKey, encode(record), claim.revision);
  }
}

/** Hooks for a route scope; runs after authentication so keys are per merchant and mode. */
export function registerIdempotency(app: FastifyInstance, store: IdempotencyStore): void {
  app.addHook('preHandler', async (req: FastifyRequest, reply: FastifyReply) => {
    const header = req.headers['idempotency-key'];
    if (req.method !== 'POST' || header === undefined) return;
    const key = Array.isArray(header) ? header[0] : header;
    if (!key || key.length > MAX_KEY_LENGTH) {
      throw new PlatformError('VALIDATION_FAILED', `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`, {
        param: 'Idempotency-Key',
      });
    }
    const scope = `${req.caller.merchantId}.${req.caller.mode ?? 'dashboard'}`;
    const digest = createHash('sha256').update(`${req.routeOptions.url}\n${key}`).digest('hex');
    const fingerprint = createHash('sha256')
      .update(`${req.method} ${req.url}\n${canonical(req.body ?? null)}`)
      .digest('hex');
    const outcome = await store.begin(`m${scope}.${digest}`, fingerprint);
    if (outcome.kind === 'replay') {
      const r = outcome.record;
      return reply
        .status(r.status ?? 200)
        .header('idempotent-replayed', 'true')
        .header('content-type', r.content_type ?? 'application/json; charset=utf-8')
        .send(r.body);
    }
    req.idempotencyClaim = outcome.claim;
  });
  app.addHook('onSend', async (req, reply, payload) => {
    const claim = req.idempotencyClaim;
    if (!claim) return payload;
    req.idempotencyClaim = undefined;
    const contentType = reply.getHeader('content-type');
    await store.complete(
      claim,
      reply.statusCode,
      String(payload ?? ''),
      typeof contentType === 'string' ? contentType : undefined,
      reply.getHeader('cache-control') === 'no-store',
    );
    return payload;
  });
}
