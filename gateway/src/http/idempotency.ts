import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KV } from 'nats';
import { Counter } from 'prom-client';
import { canonicalJson, PlatformError, type EncryptedSecret, type SecretBox } from '@ppay/kernel';
import { type Logger, type PlatformMetrics } from '@ppay/runtime';

/**
 * `Idempotency-Key` on every partner POST and PATCH (Stripe semantics; PATCH carries deltas such as a stock adjustment): the first final answer (2xx or a 4xx
 * that retrying cannot change) is kept for 24 h and replayed for the same key with
 * `Idempotent-Replayed: true`; the same key with a different request is refused (422); a retry while
 * the first request is still running gets 409.
 *
 * Retryable answers are never kept: a 409 conflict, 429, or a 5xx that says nothing happened (the
 * service was unavailable) frees the key so the retry runs. A 504 is an unknown outcome: the record
 * stays, marked `unknown`, so the key keeps its request (a different body is still 422) and the retry
 * is forwarded again — services that create money (charges, sessions) are themselves idempotent by the
 * key and answer the real result.
 *
 * The gateway owns no database: records live in a NATS JetStream key-value bucket whose TTL is the
 * retention and whose size is bounded (it cannot starve the PAYMENTS stream); `create` and
 * compare-and-set `update` make claiming a key atomic across replicas. Stored answers are encrypted
 * (they can hold a new API key or webhook secret, shown once). If the bucket is unavailable or full
 * the request is served without the replay protection (logged and counted): charges and sessions
 * stay idempotent in payments.
 */
export const IDEMPOTENCY_BUCKET = 'IDEMPOTENCY';
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A claim older than this belongs to a request that died; a retry may take it over. */
const ABANDONED_AFTER_MS = 60_000;
const MAX_KEY_LENGTH = 255;

interface StoredRecord {
  state: 'in_flight' | 'done' | 'unknown';
  fingerprint: string;
  started_at: number;
  status?: number;
  sealed_body?: EncryptedSecret;
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

/** What becomes of a key after an answer with this HTTP status. */
export function fateOf(status: number): 'keep' | 'unknown' | 'free' {
  if (status === 504) return 'unknown';
  if (status >= 500 || status === 409 || status === 429) return 'free';
  return 'keep';
}

type Begun = { kind: 'claimed'; claim: Claim } | { kind: 'replay'; record: StoredRecord; body: string };

/** The bucket failed (unavailable, full, value too large): not the partner's problem. */
class StoreUnavailable extends Error {}

export class IdempotencyStore {
  private readonly failures: Counter<'operation'>;

  constructor(
    private readonly kv: KV,
    private readonly box: SecretBox,
    private readonly log: Logger,
    metrics: PlatformMetrics,
  ) {
    this.failures = new Counter({
      name: 'ppay_gateway_idempotency_store_failures_total',
      help: 'Idempotency-Key bucket operations that failed (the request was served without replay protection)',
      labelNames: ['operation'],
      registers: [metrics.registry],
    });
  }

  async begin(kvKey: string, fingerprint: string): Promise<Begun | undefined> {
    try {
      return await this.claimOrReplay(kvKey, fingerprint);
    } catch (err) {
      if (!(err instanceof StoreUnavailable)) throw err;
      this.failures.inc({ operation: 'begin' });
      this.log.warn({ err: err.cause }, 'idempotency bucket unavailable: serving without replay protection');
      return undefined;
    }
  }

  async complete(claim: Claim, status: number, body: string, contentType: string | undefined): Promise<void> {
    try {
      const fate = fateOf(status);
      if (fate === 'free') {
        await this.kv.delete(claim.kvKey);
        return;
      }
      const record: StoredRecord =
        fate === 'unknown'
          ? { state: 'unknown', fingerprint: claim.fingerprint, started_at: Date.now() }
          : {
              state: 'done',
              fingerprint: claim.fingerprint,
              started_at: Date.now(),
              status,
              sealed_body: this.box.seal(body),
              content_type: contentType,
            };
      await this.kv.update(claim.kvKey, encode(record), claim.revision);
    } catch (err) {
      // Too large to keep, or the bucket is down: the retry will run the request again.
      this.failures.inc({ operation: 'complete' });
      this.log.warn({ err }, 'idempotency record not kept');
      await this.kv.delete(claim.kvKey).catch(() => undefined);
    }
  }

  private async claimOrReplay(kvKey: string, fingerprint: string): Promise<Begun> {
    const fresh: StoredRecord = { state: 'in_flight', fingerprint, started_at: Date.now() };
    const claim = async (revision: number | undefined): Promise<{ kind: 'claimed'; claim: Claim }> => {
      const next =
        revision === undefined
          ? await this.kv.create(kvKey, encode(fresh))
          : await this.kv.update(kvKey, encode(fresh), revision);
      return { kind: 'claimed', claim: { kvKey, fingerprint, revision: next } };
    };
    const entry = await this.read(kvKey);
    if (!entry || entry.operation !== 'PUT') {
      try {
        return await claim(entry?.revision);
      } catch (err) {
        // Someone claimed it between our read and write: look again below.
        if (!(await this.read(kvKey))) throw new StoreUnavailable('claim failed', { cause: err });
        return this.claimOrReplay(kvKey, fingerprint);
      }
    }
    const record = decode(entry.value);
    if (record.fingerprint !== fingerprint) {
      throw new PlatformError('IDEMPOTENCY_KEY_REUSED', undefined, {
        param: 'Idempotency-Key',
        detail: 'keys are single-use: send a new key for a different request',
      });
    }
    if (record.state === 'done') return { kind: 'replay' as const, record, body: this.box.open(record.sealed_body!) };
    if (record.state === 'in_flight' && Date.now() - record.started_at < ABANDONED_AFTER_MS) {
      throw new PlatformError('IDEMPOTENCY_IN_FLIGHT');
    }
    // An unknown outcome or an abandoned claim: forward the request again.
    try {
      return await claim(entry.revision);
    } catch {
      throw new PlatformError('IDEMPOTENCY_IN_FLIGHT');
    }
  }

  private async read(kvKey: string) {
    try {
      return await this.kv.get(kvKey);
    } catch (err) {
      throw new StoreUnavailable('read failed', { cause: err });
    }
  }
}

/** Hooks for a route scope; runs after authentication so keys are per merchant and mode. */
export function registerIdempotency(app: FastifyInstance, store: IdempotencyStore): void {
  app.addHook('preHandler', async (req: FastifyRequest, reply: FastifyReply) => {
    const header = req.headers['idempotency-key'];
    if ((req.method !== 'POST' && req.method !== 'PATCH') || header === undefined) return;
    const key = Array.isArray(header) ? header[0] : header;
    if (!key || key.length > MAX_KEY_LENGTH) {
      throw new PlatformError('VALIDATION_FAILED', `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`, {
        param: 'Idempotency-Key',
      });
    }
    const scope = `${req.caller.merchantId}.${req.caller.mode ?? 'dashboard'}`;
    const digest = createHash('sha256').update(`${req.routeOptions.url}\n${key}`).digest('hex');
    const fingerprint = createHash('sha256')
      .update(`${req.method} ${req.url}\n${canonicalJson(req.body ?? null)}`)
      .digest('hex');
    const outcome = await store.begin(`m${scope}.${digest}`, fingerprint);
    if (!outcome) return;
    if (outcome.kind === 'replay') {
      return reply
        .status(outcome.record.status ?? 200)
        .header('idempotent-replayed', 'true')
        .header('content-type', outcome.record.content_type ?? 'application/json; charset=utf-8')
        .send(outcome.body);
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
    );
    return payload;
  });
}
