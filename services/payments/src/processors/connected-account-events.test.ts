import Stripe from 'stripe';
import { PlatformError } from '@ppay/kernel';
import { ConnectedAccountEventApplier, type AccountStatusAnswer } from './connected-account-events';
import type { ConnectedAccountEvent } from './processor-event';
import { ProcessorEventInbox } from './processor-events';
import { processorEventHandlers } from './processor-events.handlers';
import { appliersOf, MemoryProcessorEvents } from './processor-events.test-util';
import { MAX_REQUIREMENTS } from './stripe/stripe-account-events.adapter';
import { StripeEventVerifier } from './stripe/stripe-events.adapter';

/**
 * Connected accounts' status events (Stripe Connect, issue 34 item 2): signed as Stripe signs them,
 * verified and mapped by payments, stored once, then handed to kyc, whose answer is the event's verdict.
 */
const SECRET = 'whsec_unit_platform00';
const CONNECT_SECRET = 'whsec_unit_connect000';
const CREATED = 1_764_583_200;

/** kyc as the applier sees it: answers scripted per account (default not_found), an Error thrown. */
class ScriptedStatuses {
  readonly asked: ConnectedAccountEvent[] = [];
  readonly answers = new Map<string, AccountStatusAnswer | Error>();
  async apply(e: ConnectedAccountEvent): Promise<AccountStatusAnswer> {
    this.asked.push(e);
    const a = this.answers.get(e.account_reference) ?? { outcome: 'not_found', submission_id: null, status: null };
    if (a instanceof Error) throw a;
    return a;
  }
}

function setup() {
  let now = new Date('2026-12-01T10:00:00Z');
  const events = new MemoryProcessorEvents();
  const statuses = new ScriptedStatuses();
  const unavailable: string[] = [];
  const finished: string[] = [];
  const connected_account = new ConnectedAccountEventApplier({ statuses }, (e) => unavailable.push(e.event_id));
  const inbox = new ProcessorEventInbox(
    { events, appliers: appliersOf({ connected_account }) },
    {
      unmatchedAfterMs: 60_000,
      retryMs: 1_000,
      now: () => now,
      onFinished: ({ event }, status) => finished.push(`${event.event_id}:${status}`),
    },
  );
  // The platform endpoint's secret and the Connect endpoint's: connected accounts' events come signed by the latter.
  const verifier = new StripeEventVerifier(Stripe.webhooks, [SECRET, CONNECT_SECRET]);
  const handler = processorEventHandlers(
    inbox,
    { stripe: verifier },
    () => undefined,
    (err) => {
      throw err;
    },
  ).ReceiveProcessorEvent!;
  const post = (payload: string, secret = CONNECT_SECRET) =>
    (handler as (req: unknown, ctx: unknown) => Promise<{ outcome: string }>)(
      {
        processor: 'stripe',
        payload: Buffer.from(payload),
        signature: Stripe.webhooks.generateTestHeaderString({ payload, secret }),
      },
      {},
    );
  return {
    events,
    statuses,
    inbox,
    post,
    unavailable,
    finished,
    verifier,
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
    status: (id: string) => events.docs.get(`stripe:${id}`),
    receive: (payload: string) => {
      const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: CONNECT_SECRET });
      const verified = verifier.verify(Buffer.from(payload), signature);
      if (verified.kind !== 'event') throw new Error('expected an event');
      return inbox.receive(verified.event);
    },
  };
}

/** A Connect event as Stripe sends it: `account` names the connected account it is about. */
function connectEvent(id: string, type: string, object: Record<string, unknown>, account: string | null = 'acct_1A') {
  return JSON.stringify({
    id,
    object: 'event',
    type,
    created: CREATED,
    livemode: false,
    ...(account ? { account } : {}),
    data: { object },
  });
}

const accountUpdated = (id: string, account: Record<string, unknown> = {}, connected: string | null = 'acct_1A') =>
  connectEvent(
    id,
    'account.updated',
    {
      id: 'acct_1A',
      object: 'account',
      charges_enabled: true,
      payouts_enabled: true,
      details_submitted: true,
      requirements: {
        currently_due: [],
        past_due: [],
        eventually_due: ['company.tax_id'],
        disabled_reason: null,
      },
      metadata: {},
      ...account,
    },
    connected,
  );

const applied: AccountStatusAnswer = { outcome: 'applied', submission_id: 7, status: 'approved' };

describe('connected account status events (Stripe Connect)', () => {
  it('maps a signed account.updated to a connected_account event, stored once and handed to kyc', async () => {
    const t = setup();
    t.statuses.answers.set('acct_1A', applied);
    const payload = accountUpdated('evt_a1');
    expect(await t.post(payload)).toEqual({ outcome: 'received' });
    expect(await t.post(payload)).toEqual({ outcome: 'duplicate' });
    await t.inbox.applyDue();
    // The handler's background run and the sweep may both ask (kyc's answer is the same): one event asked about.
    expect(new Set(t.statuses.asked.map((e) => JSON.stringify(e))).size).toBe(1);
    expect(t.statuses.asked[0]).toEqual({
      kind: 'connected_account',
      processor: 'stripe',
      event_id: 'evt_a1',
      type: 'account.updated',
      mode: 'live',
      account_reference: 'acct_1A',
      occurred_at: new Date(CREATED * 1_000).toISOString(),
      charges_enabled: true,
      payouts_enabled: true,
      details_submitted: true,
      currently_due: [],
      past_due: [],
      eventually_due: ['company.tax_id'],
      disabled_reason: null,
      deauthorized: false,
    });
    expect(t.status('evt_a1')).toMatchObject({ status: 'applied', note: 'KYC submission 7 is approved' });
  });

  it('carries the requirements due and a rejected.* reason as Stripe gives them, bounded', () => {
    const t = setup();
    const many = Array.from({ length: 80 }, (_, i) => `person_${i}.${'x'.repeat(300)}`);
    const payload = accountUpdated('evt_a2', {
      charges_enabled: false,
      payouts_enabled: false,
      requirements: {
        currently_due: many,
        past_due: ['external_account'],
        eventually_due: null,
        disabled_reason: 'rejected.fraud',
      },
    });
    const verified = t.verifier.verify(
      Buffer.from(payload),
      Stripe.webhooks.generateTestHeaderString({ payload, secret: CONNECT_SECRET }),
    );
    expect(verified.kind).toBe('event');
    const e = (verified as { event: ConnectedAccountEvent }).event;
    expect(e).toMatchObject({
      charges_enabled: false,
      payouts_enabled: false,
      past_due: ['external_account'],
      eventually_due: [],
      disabled_reason: 'rejected.fraud',
    });
    expect(e.currently_due).toHaveLength(MAX_REQUIREMENTS);
    expect(Math.max(...e.currently_due.map((r) => r.length))).toBe(200);
  });

  it('maps account.application.deauthorized to a deauthorized account named by the event', async () => {
    const t = setup();
    t.statuses.answers.set('acct_1A', { outcome: 'applied', submission_id: 7, status: 'revoked' });
    const payload = connectEvent('evt_d1', 'account.application.deauthorized', {
      id: 'ca_platform',
      object: 'application',
      name: 'Partner Payments',
    });
    await t.post(payload);
    await t.inbox.applyDue();
    expect(t.statuses.asked[0]).toMatchObject({
      type: 'account.application.deauthorized',
      account_reference: 'acct_1A',
      deauthorized: true,
      charges_enabled: false,
      payouts_enabled: false,
    });
    expect(t.status('evt_d1')?.status).toBe('applied');
  });

  it('ignores an update of the platform’s own account, or of another account than the event names', async () => {
    const t = setup();
    expect(await t.post(accountUpdated('evt_own', {}, null), SECRET)).toEqual({ outcome: 'ignored' });
    expect(await t.post(accountUpdated('evt_other', { id: 'acct_2B' }))).toEqual({ outcome: 'ignored' });
    expect(
      await t.post(connectEvent('evt_d0', 'account.application.deauthorized', { id: 'ca_x' }, null), SECRET),
    ).toEqual({ outcome: 'ignored' });
    await t.inbox.applyDue();
    expect(t.statuses.asked).toEqual([]);
  });

  it('refuses an event signed with neither secret', async () => {
    const t = setup();
    await expect(t.post(accountUpdated('evt_forged'), 'whsec_unit_attacker00')).rejects.toMatchObject({
      code: 'PROCESSOR_SIGNATURE_INVALID',
    });
    expect(t.events.docs.size).toBe(0);
  });

  it('retries while kyc is unavailable, backing off, and applies once it answers', async () => {
    const t = setup();
    t.statuses.answers.set('acct_1A', new PlatformError('SERVICE_UNAVAILABLE'));
    // Stored without the handler's background run, so that each attempt below is one sweep's.
    await t.receive(accountUpdated('evt_r1'));
    await t.inbox.applyDue();
    expect(t.status('evt_r1')).toMatchObject({ status: 'received', attempts: 1 });
    t.advance(1_000);
    await t.inbox.applyDue();
    // The second delay is doubled: not due a second later.
    t.advance(1_000);
    await t.inbox.applyDue();
    expect(t.status('evt_r1')).toMatchObject({ status: 'received', attempts: 2 });
    expect(t.unavailable).toEqual(['evt_r1', 'evt_r1']);
    // Long past the unmatched window: an unavailable kyc never makes the event unmatched.
    t.advance(120_000);
    t.statuses.answers.set('acct_1A', applied);
    await t.inbox.applyDue();
    expect(t.status('evt_r1')?.status).toBe('applied');
  });

  it('waits for a case kyc does not have yet, then counts the event unmatched', async () => {
    const t = setup();
    await t.post(accountUpdated('evt_u1'));
    await t.inbox.applyDue();
    expect(t.status('evt_u1')?.status).toBe('received');
    t.advance(30_000);
    await t.inbox.applyDue();
    expect(t.status('evt_u1')?.status).toBe('received');
    t.advance(31_000);
    await t.inbox.applyDue();
    expect(t.status('evt_u1')?.status).toBe('unmatched');
    expect(t.finished).toEqual(['evt_u1:unmatched']);
  });

  it('turns kyc’s other answers into final verdicts', async () => {
    const t = setup();
    const cases: [AccountStatusAnswer | Error, string, string | null][] = [
      [
        { outcome: 'unchanged', submission_id: 7, status: 'approved' },
        'duplicate',
        'KYC submission 7 already is approved',
      ],
      [
        { outcome: 'stale', submission_id: 7, status: 'approved' },
        'stale',
        'KYC submission 7 has a newer account event applied',
      ],
      [
        { outcome: 'refused', submission_id: 7, status: 'revoked' },
        'stale',
        'KYC submission 7 is revoked: the event cannot move it',
      ],
      [
        new PlatformError('VALIDATION_FAILED', 'occurred_at must be an ISO 8601 time'),
        'mismatch',
        'kyc refused the event: occurred_at must be an ISO 8601 time',
      ],
    ];
    for (const [i, [answer, status, note]] of cases.entries()) {
      t.statuses.answers.set('acct_1A', answer);
      await t.post(accountUpdated(`evt_v${i}`));
      await t.inbox.applyDue();
      expect(t.status(`evt_v${i}`)).toMatchObject({ status, note });
    }
  });
});
