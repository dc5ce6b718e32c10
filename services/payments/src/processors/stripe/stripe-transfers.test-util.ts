import type * as http from 'node:http';
import { stripeClient, type StripeObserver } from '@ppay/stripe-support';
import { scriptedStripe, stripeError } from './stripe.test-util';
import { StripeTransferProcessor } from './stripe-transfers.adapter';

/** What the next new transfer request does (a repeat of a key Stripe answered replays that answer). */
export type TransferBehaviour =
  | 'create'
  /** 400 balance_insufficient: the platform's balance does not cover it. */
  | 'refuse'
  /** 503: nothing done. */
  | 'unavailable'
  /** 409: the same key still being processed (a concurrent attempt): nothing decided. */
  | 'conflict'
  /** No answer, and nothing done. */
  | 'hang'
  /** Made at Stripe, but the answer never arrives (the dangerous timeout). */
  | 'create_and_hang';

const EU_SECRET = 'sk_test_unitEU00000000secret';

/**
 * Stripe's transfers for flows: the real library talks HTTP to an in-process Stripe that keeps
 * transfers, replays an idempotency key's first answer, and lists by transfer group.
 */
export async function fakeStripeTransfers() {
  const transfers: Record<string, unknown>[] = [];
  const answered = new Map<string, { status: number; json: unknown }>();
  const next: TransferBehaviour[] = [];
  /** Every POST /v1/transfers as it arrived: its form, key and the platform key it was made with. */
  const creates: { form: Record<string, string>; key: string; secret: string; account: string | undefined }[] = [];
  const secretOf = (req: http.IncomingMessage) => String(req.headers.authorization ?? '').replace(/^Bearer /, '');
  const server = await scriptedStripe((req, body) => {
    const url = new URL(req.url ?? '/', 'http://stripe');
    if (req.method === 'GET' && url.pathname === '/v1/transfers') {
      const group = url.searchParams.get('transfer_group');
      const data = transfers.filter((t) => t.transfer_group === group && t.platform === secretOf(req));
      return { status: 200, json: { object: 'list', url: '/v1/transfers', has_more: false, data } };
    }
    if (req.method !== 'POST' || url.pathname !== '/v1/transfers') return stripeError(404, 'invalid_request_error');
    const form = Object.fromEntries(new URLSearchParams(body));
    const key = String(req.headers['idempotency-key'] ?? '');
    creates.push({ form, key, secret: secretOf(req), account: req.headers['stripe-account'] as string | undefined });
    const replay = answered.get(`${secretOf(req)}:${key}`);
    if (replay) return replay;
    const behaviour = next.shift() ?? 'create';
    if (behaviour === 'hang') return { status: 0, hang: true };
    if (behaviour === 'unavailable') return stripeError(503, 'api_error');
    if (behaviour === 'conflict') return stripeError(409, 'idempotency_error');
    const answer =
      behaviour === 'refuse'
        ? stripeError(400, 'invalid_request_error', { code: 'balance_insufficient' })
        : { status: 200, json: newTransfer(form, transfers.length + 1, secretOf(req)) };
    if (answer.status === 200) transfers.push(answer.json as Record<string, unknown>);
    answered.set(`${secretOf(req)}:${key}`, answer);
    return behaviour === 'create_and_hang' ? { status: 0, hang: true } : answer;
  });
  const settings = server.settings();
  const eu = { ...settings, secretKey: EU_SECRET };
  return {
    transfers,
    creates,
    next,
    processor: (observer: StripeObserver = { call: () => undefined, authFailure: () => undefined }) =>
      new StripeTransferProcessor({ US: stripeClient(settings), EU: stripeClient(eu) }, observer),
    usSecret: settings.secretKey,
    euSecret: EU_SECRET,
    close: server.close,
  };
}

function newTransfer(form: Record<string, string>, n: number, platform: string) {
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(form)) {
    const m = /^metadata\[(.+)\]$/.exec(k);
    if (m) metadata[m[1]!] = v;
  }
  return {
    id: `tr_fake${n}`,
    object: 'transfer',
    amount: Number(form.amount),
    amount_reversed: 0,
    currency: form.currency,
    destination: form.destination,
    transfer_group: form.transfer_group,
    metadata,
    reversed: false,
    created: 1_764_583_200,
    // Not Stripe's: which platform account made it (the fake lists each account's own).
    platform,
  };
}
