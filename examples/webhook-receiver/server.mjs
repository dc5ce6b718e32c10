// A minimal webhook receiver on node:http: verify, answer 200 at once, then process.
// Run: WEBHOOK_SECRETS=whsec_new[,whsec_old] PORT=4000 node server.mjs  (see README.md)
import { createServer } from 'node:http';
import { setImmediate } from 'node:timers';
import { expressRawBody, verifyWebhook, WebhookVerificationError } from '@ppay/webhooks-receiver';

const PORT = Number(process.env.PORT ?? 4000);
// Several secrets so a rotation needs no downtime: add the new one, deploy, drop the old one later.
const SECRETS = (process.env.WEBHOOK_SECRETS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
// Reads the exact bytes into req.rawBody (413 above the limit); works on plain node:http too.
const readRawBody = expressRawBody({ limit: 1024 * 1024 });

if (SECRETS.length === 0) {
  console.error('Set WEBHOOK_SECRETS to your webhook secret(s), comma-separated: whsec_new[,whsec_old]');
  process.exit(1);
}

/**
 * A Map bounded in size and age. Insertion order is age order, so the oldest entries are at the
 * front: expired ones are dropped from there on every write, and the oldest goes when full.
 */
class ExpiringMap {
  constructor(maxEntries, ttlMs) {
    this.maxEntries = maxEntries;
    this.ttlMs = ttlMs;
    this.entries = new Map();
  }

  get(key) {
    const entry = this.entries.get(key);
    if (!entry || entry.expiresAt <= Date.now()) return undefined;
    return entry.value;
  }

  set(key, value) {
    const now = Date.now();
    this.entries.delete(key);
    for (const [oldKey, entry] of this.entries) {
      if (entry.expiresAt > now && this.entries.size < this.maxEntries) break;
      this.entries.delete(oldKey);
    }
    this.entries.set(key, { value, expiresAt: now + this.ttlMs });
  }
}

// Retries reuse event_id, so remembering ids for a day covers the platform's retries and resends.
const processedEvents = new ExpiringMap(50_000, 24 * 60 * 60 * 1000);
// Highest sequence applied per object; a week is far longer than any delivery delay.
const latestSequence = new ExpiringMap(200_000, 7 * 24 * 60 * 60 * 1000);

/** The object an event updates: data.object_id, else the charge, subscription or wallet id. */
function objectIdOf(data) {
  if (typeof data !== 'object' || data === null) return undefined;
  return data.object_id ?? data.charge_id ?? data.subscription_id ?? data.wallet_id;
}

function log(outcome, event, extra = '') {
  const id = event ? `${event.event_type} ${event.event_id}` : '-';
  console.log(`${new Date().toISOString()} ${outcome} ${id}${extra ? ` ${extra}` : ''}`);
}

function reply(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Your business logic goes here; it runs after the 200 has been sent. */
async function processEvent(event) {
  log('processed', event, `object=${objectIdOf(event.data) ?? '-'} sequence=${event.sequence ?? '-'}`);
}

function accept(event) {
  if (processedEvents.get(event.event_id)) return log('duplicate', event);
  processedEvents.set(event.event_id, true);

  const objectId = objectIdOf(event.data);
  if (objectId !== undefined && Number.isInteger(event.sequence)) {
    const applied = latestSequence.get(objectId);
    // An older update that arrived late: the newer state is already applied.
    if (applied !== undefined && event.sequence <= applied) {
      return log('stale', event, `object=${objectId} sequence=${event.sequence} applied=${applied}`);
    }
    latestSequence.set(objectId, event.sequence);
  }
  setImmediate(() => processEvent(event).catch((err) => log('failed', event, String(err))));
}

function handleWebhook(req, res) {
  let event;
  try {
    event = verifyWebhook(req.rawBody, req.headers, SECRETS);
  } catch (err) {
    const code = err instanceof WebhookVerificationError ? err.code : 'internal_error';
    log('rejected', undefined, `${code}: ${err.message}`);
    return reply(res, code === 'internal_error' ? 500 : 400, { error: code });
  }
  // Acknowledge first (spec: within 5 s); duplicates and stale updates get 200 too, so they are not retried.
  reply(res, 200, { received: true });
  accept(event);
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/healthz') return reply(res, 200, { ok: true });
  if (req.method !== 'POST' || req.url !== '/webhooks') return reply(res, 404, { error: 'not_found' });
  readRawBody(req, res, (err) => {
    if (err) return res.destroy(); // the client went away mid-upload
    handleWebhook(req, res);
  });
});

server.listen(PORT, () => console.log(`webhook receiver listening on http://localhost:${PORT}/webhooks`));
process.once('SIGTERM', () => server.close());
process.once('SIGINT', () => server.close());
