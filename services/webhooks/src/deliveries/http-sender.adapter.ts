import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import type { SendInput, SendResult, WebhookSender } from '../ports';
import { USER_AGENT } from './signed-request';
import { webhookDns, type AsyncDnsResolver } from './dns-resolver.adapter';
import { BlockedTargetError, classifyAddress, guardedLookup, isAllowedTarget } from './ssrf';

export interface SendWebhookInput {
  url: string;
  body: string;
  /** Event and signature headers; content-type and content-length are set here. */
  headers: Readonly<Record<string, string>>;
  /** Budget for the whole attempt: socket wait, connect, TLS, response. Default 10 s (spec 6.3). */
  timeoutMs?: number;
  /** Sandbox local development only; the caller must pass false for live keys. */
  allowPrivateTargets: boolean;
  /** For tests. It must not set its own `lookup`, which would bypass the SSRF guard. */
  agent?: http.Agent;
  /** For tests (with `agent`: a pooled agent resolves with the process's resolver). */
  dns?: AsyncDnsResolver;
}

export const DELIVERY_TIMEOUT_MS = 10_000;
export const RESPONSE_EXCERPT_BYTES = 1024;
/** Per receiver host and port: a slow receiver queues its own deliveries, not everyone's. */
export const MAX_SOCKETS_PER_HOST = 8;
/** Below Node's default server keep-alive (5 s), so we rarely reuse a socket the receiver is closing. */
const IDLE_SOCKET_TIMEOUT_MS = 4_000;
const OWN_HEADERS = /^(content-type|content-length|transfer-encoding|connection|host)$/i;
const TLS_ERROR_CODE =
  /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$|EPROTO$)/;

/**
 * One keep-alive agent per protocol and SSRF policy. The guarded lookup lives on the agent, so a
 * pooled socket opened under the permissive sandbox policy can never serve a strict request.
 */
const agents = new Map<string, http.Agent>();

function agentFor(protocol: string, allowPrivateTargets: boolean): http.Agent {
  const key = `${protocol}${allowPrivateTargets ? 'private-ok' : 'public-only'}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = {
      keepAlive: true,
      maxSockets: MAX_SOCKETS_PER_HOST,
      maxFreeSockets: MAX_SOCKETS_PER_HOST,
      timeout: IDLE_SOCKET_TIMEOUT_MS,
      lookup: guardedLookup({ allowPrivateTargets, lookup: webhookDns.lookupAll }),
    };
    agent = protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    agents.set(key, agent);
  }
  return agent;
}

/** Closes pooled sockets (shutdown, tests). Later sends create fresh agents. */
export function destroyAgents(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

function outcomeOf(status: number): Pick<SendResult, 'error_class' | 'success'> {
  if (status >= 200 && status < 300) return { error_class: null, success: true };
  // Never followed: the target was vetted, wherever a Location points was not.
  if (status >= 300 && status < 400) return { error_class: 'redirect', success: false };
  return { error_class: 'http_error', success: false };
}

function errorClassOf(err: NodeJS.ErrnoException, protocol: string): NonNullable<SendResult['error_class']> {
  if (err instanceof BlockedTargetError) return 'blocked_target';
  const code = err.code ?? '';
  if (protocol === 'https:' && TLS_ERROR_CODE.test(code)) return 'tls_error';
  if (code === 'ETIMEDOUT') return 'timeout';
  return 'network_error';
}

function requestHeaders(input: SendWebhookInput): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers)) if (!OWN_HEADERS.test(name)) headers[name] = value;
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent')) headers['user-agent'] = USER_AGENT;
  headers['content-type'] = 'application/json';
  headers['content-length'] = String(Buffer.byteLength(input.body));
  return headers;
}

/** Refused before any socket: unusable URLs, and IP literals, which Node connects to without `lookup`. */
function refusedUpFront(rawUrl: string, allowPrivateTargets: boolean): URL | undefined {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) && !isAllowedTarget(classifyAddress(host), allowPrivateTargets)) return undefined;
  return url;
}

/**
 * One webhook HTTP attempt (spec 6.3: POST, 10 s timeout, any 2xx is success). Retries and the
 * delivery log are the caller's: this only sends once and says what happened, without throwing
 * for anything the receiver does.
 */
export function sendWebhook(input: SendWebhookInput): Promise<SendResult> {
  const started = performance.now();
  const result = (partial: Partial<SendResult>): SendResult => ({
    status: null,
    error_class: null,
    response_excerpt: '',
    success: false,
    ...partial,
    duration_ms: Math.round(performance.now() - started),
  });

  const url = refusedUpFront(input.url, input.allowPrivateTargets);
  if (!url) return Promise.resolve(result({ error_class: 'blocked_target' }));

  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let response: IncomingMessage | undefined;
    const excerpt: Buffer[] = [];
    let excerptBytes = 0;
    // One budget for everything. Once the status is in, the outcome is known: the deadline only
    // cuts the excerpt short.
    const timer = setTimeout(onDeadline, input.timeoutMs ?? DELIVERY_TIMEOUT_MS);

    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(
      url,
      {
        method: 'POST',
        agent: input.agent ?? agentFor(url.protocol, input.allowPrivateTargets),
        lookup: guardedLookup({
          allowPrivateTargets: input.allowPrivateTargets,
          lookup: (input.dns ?? webhookDns).lookupAll,
        }),
        headers: requestHeaders(input),
      },
      onResponse,
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (response) finishWithResponse();
      else finish({ error_class: errorClassOf(err, url.protocol) });
    });
    req.end(input.body);

    function onResponse(res: IncomingMessage) {
      response = res;
      res.on('data', (chunk: Buffer) => {
        const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - excerptBytes);
        excerpt.push(part);
        excerptBytes += part.length;
        if (excerptBytes >= RESPONSE_EXCERPT_BYTES) {
          finishWithResponse();
          // The rest is not our business; the socket goes rather than back to the pool.
          res.destroy();
        }
      });
      res.once('end', finishWithResponse);
      res.once('error', finishWithResponse);
      res.once('close', finishWithResponse);
    }

    function onDeadline() {
      if (response) {
        finishWithResponse();
        response.destroy();
      } else {
        finish({ error_class: 'timeout' });
        req.destroy();
      }
    }

    function finishWithResponse() {
      if (!response) return;
      const status = response.statusCode ?? 0;
      // StringDecoder holds back a character cut at the 1 KB boundary instead of emitting U+FFFD.
      const text = new StringDecoder('utf8').write(Buffer.concat(excerpt, excerptBytes));
      finish({ status, response_excerpt: text, ...outcomeOf(status) });
    }

    function finish(partial: Partial<SendResult>) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result(partial));
    }
  });
}

/** The sender port over this SSRF-guarded node:http sender. */
export class HttpWebhookSender implements WebhookSender {
  send(input: SendInput): Promise<SendResult> {
    return sendWebhook(input);
  }
}
