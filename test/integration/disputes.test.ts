import type { Browser, Page } from 'playwright-core';
import { NGN_CHARGE } from '../support/fixtures';
import { launchChromium } from '../support/browser';
import { eventually, http, startTestPlatform, type TestPlatform } from '../support/platform';
import { startReceiver } from '../support/webhook-receiver';

// NGN 5,000.00 captured, fee ₦175.00: the merchant was credited 482,500; the dispute fee is ₦2,500.00.
const NET = 482_500;
const FEE = 250_000;

/** Disputes end to end: the lifecycle, its money exactly once, its webhooks, and the hosted-page test cards. */
describe('disputes', () => {
  let t: TestPlatform;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let browser: Browser;

  const api = (key: string, method: string, url: string, body?: unknown) =>
    http(t.url, method, `/api/v1/partner${url}`, { headers: { 'x-api-key': key }, body });
  const ledger = async (chargeId: string) =>
    (await t.db('payments'))
      .collection('ledger_entries')
      .find({ charge_id: chargeId })
      .sort({ created_at: 1 })
      .toArray();
  const paidCharge = async (key: string) => {
    const created = await api(key, 'POST', '/payments/charge', NGN_CHARGE);
    expect([created.status, created.body.error?.code]).toEqual([200, undefined]);
    const id = created.body.data.charge_id as string;
    expect((await api(key, 'POST', `/sandbox/charges/${id}/succeed`)).status).toBe(200);
    return id;
  };
  const dispute = async (key: string, id: string) => (await api(key, 'GET', `/disputes/${id}`)).body.data;

  beforeAll(async () => {
    rx = await startReceiver(() => ({ status: 200 }));
    t = await startTestPlatform('disputes');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await rx?.close();
  });

  it('opens, withdraws once, blocks refunds, is won on winning evidence and gives everything back; webhooks follow', async () => {
    const m = await t.merchant();
    const hook = await http(t.url, 'PUT', `/api/v1/partner/api-keys/${m.api_key_id}/webhook`, {
      headers: { 'x-id-key': m.user_token },
      body: { webhook_url: rx.url('/disputes') },
    });
    expect(hook.status).toBe(200);
    const chargeId = await paidCharge(m.api_key);

    const opened = await api(m.api_key, 'POST', `/sandbox/charges/${chargeId}/dispute`, { reason: 'fraudulent' });
    expect([opened.status, opened.body.error?.code]).toEqual([200, undefined]);
    const d = opened.body.data;
    expect(d).toMatchObject({
      dispute_id: expect.stringMatching(/^dp_/),
      charge_id: chargeId,
      amount: { amount: 500_000, currency: 'NGN' },
      fee: { amount: FEE, currency: 'NGN' },
      reason: 'fraudulent',
      status: 'needs_response',
      is_live: false,
      evidence_submitted_at: null,
      closed_at: null,
      funds_withdrawn: [
        {
          merchant_id: m.merchant_id,
          role: 'merchant',
          kind: 'dispute_withdrawal',
          amount: { amount: NET, currency: 'NGN' },
        },
        { merchant_id: m.merchant_id, role: 'merchant', kind: 'dispute_fee', amount: { amount: FEE, currency: 'NGN' } },
      ],
    });
    expect(Date.parse(d.evidence_due_by) - Date.parse(d.created_at)).toBeGreaterThan(6 * 24 * 3_600_000);
    const again = await api(m.api_key, 'POST', `/sandbox/charges/${chargeId}/dispute`);
    expect([again.status, again.body.error?.code]).toEqual([409, 'CHARGE_ALREADY_DISPUTED']);

    const charge = (await api(m.api_key, 'GET', `/payments/charges/${chargeId}`)).body.data;
    expect(charge).toMatchObject({
      status: 'succeeded',
      amount_disputed: 500_000,
      dispute: { dispute_id: d.dispute_id, status: 'open', amount: 500_000, currency: 'NGN' },
    });
    const refund = await api(m.api_key, 'POST', `/payments/charges/${chargeId}/refunds`, {});
    expect([refund.status, refund.body.error?.code]).toEqual([409, 'CHARGE_DISPUTED']);

    // The wallet goes below zero: the whole credit and the fee are withdrawn, once.
    expect(await eventually(async () => (await t.walletBalances(m.merchant_id))[0]?.balance === -FEE, 15_000)).toBe(
      true,
    );

    const draft = await api(m.api_key, 'POST', `/disputes/${d.dispute_id}/evidence`, {
      customer_name: 'Ada Obi',
      receipt_url: 'https://shop.example/receipts/1',
    });
    expect([draft.status, draft.body.data.status, draft.body.data.evidence.customer_name]).toEqual([
      200,
      'needs_response',
      'Ada Obi',
    ]);
    const badUrl = await api(m.api_key, 'POST', `/disputes/${d.dispute_id}/evidence`, { receipt_url: 'http://x.test' });
    expect([badUrl.status, badUrl.body.error?.param]).toEqual([400, 'evidence.receipt_url']);
    const submitted = await api(m.api_key, 'POST', `/disputes/${d.dispute_id}/evidence`, {
      uncategorized_text: 'Delivered and signed for: winning_evidence',
      submit: true,
    });
    expect([submitted.status, submitted.body.data.status]).toEqual([200, 'under_review']);
    const twice = await api(m.api_key, 'POST', `/disputes/${d.dispute_id}/evidence`, { submit: true });
    expect([twice.status, twice.body.error?.code]).toEqual([409, 'DISPUTE_EVIDENCE_SUBMITTED']);

    expect(await eventually(async () => (await dispute(m.api_key, d.dispute_id)).status === 'won', 15_000)).toBe(true);
    const won = await dispute(m.api_key, d.dispute_id);
    expect(won.funds_reinstated).toEqual(won.funds_withdrawn);
    expect(await eventually(async () => (await t.walletBalances(m.merchant_id))[0]?.balance === NET, 15_000)).toBe(
      true,
    );
    const entries = (await ledger(chargeId)).map((e) => [e.kind, e.reason, e.amount.amount]);
    expect(entries.sort()).toEqual(
      [
        ['credit', 'payment', NET],
        ['debit', 'dispute_withdrawal', NET],
        ['debit', 'dispute_fee', FEE],
        ['credit', 'dispute_reinstatement', NET],
        ['credit', 'dispute_reinstatement', FEE],
      ].sort(),
    );
    // Won: the charge may be refunded again.
    expect((await api(m.api_key, 'GET', `/payments/charges/${chargeId}`)).body.data).toMatchObject({
      amount_disputed: 0,
      dispute: { status: 'won' },
    });

    const types = [
      'dispute.created',
      'dispute.funds_withdrawn',
      'dispute.updated',
      'dispute.closed',
      'dispute.funds_reinstated',
    ];
    const seen = () => new Set(rx.on('/disputes').map((r) => r.body.event_type as string));
    expect(await eventually(async () => types.every((type) => seen().has(type)), 20_000)).toBe(true);
    const closed = rx.on('/disputes').find((r) => r.body.event_type === 'dispute.closed')!;
    expect(closed.body.data).toMatchObject({
      charge_id: chargeId,
      dispute: { dispute_id: d.dispute_id, status: 'won' },
    });
  });

  it('is lost when accepted or left past its due date, lists newest first, and refuses live keys on sandbox helpers', async () => {
    const m = await t.merchant();
    const accepted = await paidCharge(m.api_key);
    const expired = await paidCharge(m.api_key);
    const a = (await api(m.api_key, 'POST', `/sandbox/charges/${accepted}/dispute`, { amount: 100_000 })).body.data;
    const e = (await api(m.api_key, 'POST', `/sandbox/charges/${expired}/dispute`)).body.data;
    const acceptance = await api(m.api_key, 'POST', `/disputes/${a.dispute_id}/accept`);
    expect([acceptance.status, acceptance.body.data.status]).toEqual([200, 'lost']);
    const expiry = await api(m.api_key, 'POST', `/sandbox/disputes/${e.dispute_id}/expire`);
    expect([expiry.status, expiry.body.data.status]).toEqual([200, 'lost']);
    const late = await api(m.api_key, 'POST', `/disputes/${e.dispute_id}/evidence`, { customer_name: 'x' });
    expect([late.status, late.body.error?.code]).toEqual([409, 'DISPUTE_CLOSED']);
    // A lost dispute's amount is never refundable: what is left is the rest.
    const rest = await api(m.api_key, 'POST', `/payments/charges/${accepted}/refunds`, {});
    expect([rest.status, rest.body.data?.amount]).toEqual([200, 400_000]);

    const page = (await api(m.api_key, 'GET', '/disputes?limit=1&status=lost')).body.data;
    expect(page).toMatchObject({ has_more: true, disputes: [{ dispute_id: e.dispute_id }] });
    const next = (await api(m.api_key, 'GET', `/disputes?limit=1&status=lost&cursor=${page.next_cursor}`)).body.data;
    expect(next.disputes.map((x: { dispute_id: string }) => x.dispute_id)).toEqual([a.dispute_id]);
    const charges = (await api(m.api_key, 'GET', '/payments/charges?limit=2')).body.data;
    expect(charges.charges.map((c: { charge_id: string }) => c.charge_id)).toEqual([expired, accepted]);

    const other = await t.merchant();
    expect((await api(other.api_key, 'GET', `/disputes/${a.dispute_id}`)).status).toBe(404);
    const live = await t.merchant({ keyMode: 'live' });
    const refused = await api(live.api_key, 'POST', `/sandbox/charges/${accepted}/dispute`, { reason: 'bogus' });
    expect([refused.status, refused.body.error?.code]).toEqual([403, 'PERMISSION_DENIED']);
  });

  async function payOnPage(page: Page, key: string, card: string): Promise<string> {
    const res = await http(t.url, 'POST', '/api/v1/partner/payments/sessions', {
      headers: { 'x-api-key': key },
      body: { amount: 500_000, currency: 'NGN', product_name: 'Sourdough', customer: { email: 'ada@example.com' } },
    });
    expect(res.status).toBe(200);
    await page.goto(res.body.data.payment_url);
    await page.fill('#name', 'Ada Obi');
    await page.fill('#card_number', card);
    await page.fill('#expiry', '12/34');
    await page.fill('#cvc', '123');
    await page.click('[data-testid=pay]');
    await page.waitForSelector('[data-testid=completed]');
    return res.body.data.session_id as string;
  }

  it('opens a fraudulent / product_not_received dispute a few seconds after the hosted page is paid with a test card', async () => {
    const m = await t.merchant();
    const page = await browser.newPage();
    try {
      for (const [card, reason] of [
        ['4000 0000 0000 0259', 'fraudulent'],
        ['4000 0000 0000 2685', 'product_not_received'],
      ] as const) {
        await payOnPage(page, m.api_key, card);
        const found = await eventually(async () => {
          const list = (await api(m.api_key, 'GET', '/disputes?limit=100')).body.data;
          return list.disputes.some((x: { reason: string }) => x.reason === reason);
        }, 15_000);
        expect([reason, found]).toEqual([reason, true]);
      }
      // A plain test card brings no dispute.
      await payOnPage(page, m.api_key, '4242 4242 4242 4242');
      const charges = (await api(m.api_key, 'GET', '/payments/charges')).body.data.charges;
      expect(charges).toHaveLength(3);
      expect(charges.filter((c: { dispute: unknown }) => c.dispute === null)).toHaveLength(1);
    } finally {
      await page.close();
    }
  });
});
