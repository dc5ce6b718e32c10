import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { eventually } from '../support/platform';
import type { ChaosApi, Until200 } from './client';

/**
 * Physical purchases in the fault suite: customers buy units of products with finite stock on the hosted
 * page (the form posted as a browser would, without one) while the faults run, some with a card that
 * declines, some of the paid orders then cancelled by the merchant. Afterwards: one order per paid
 * session and none for others, stock exactly initial − paid + cancelled with no hold left, and every
 * cancelled order refunded in full once.
 */

/** How a customer pays: a card that is approved, one that declines, or a declined card then a good one. */
type CardPlan = 'good' | 'declining' | 'declining_then_good';

export interface PhysicalJob {
  index: number;
  /** Which of the products (0 or 1). */
  product: number;
  quantity: number;
  card: CardPlan;
  /** Whether the merchant cancels the order once it is paid. */
  cancel: boolean;
  sessionKey: string;
  sessionId?: string;
  outcome?: 'paid' | 'sold_out' | 'declined';
  orderId?: string;
  cancelled?: boolean;
}

export interface PhysicalSetup {
  key: string;
  productIds: number[];
  initialStock: number[];
}

interface Client {
  api: ChaosApi;
  until200: Until200;
  gateway: string;
  /** Counts a client retry (the suite's statistics). */
  retried: () => void;
}

const CARDS = { approved: '4242424242424242', declined: '4000000000000002' };
const PRODUCTS = 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The purchases of a run, drawn from the suite's seeded PRNG: quantities 1–3 of one of two products, a
 * tenth with a declining card only, a tenth declined then paid with a good card, a fifth of the rest
 * cancelled once paid.
 */
export function planPhysical(count: number, random: () => number): PhysicalJob[] {
  return Array.from({ length: count }, (_, index) => {
    const r = random();
    return {
      index,
      product: index % PRODUCTS,
      quantity: 1 + Math.floor(random() * 3),
      card: r < 0.1 ? 'declining' : r < 0.2 ? 'declining_then_good' : 'good',
      cancel: random() < 0.2,
      sessionKey: randomUUID(),
    };
  });
}

/**
 * Two physical products whose stock is about 85 % of the units the plan would keep (what paid
 * purchases that are not cancelled take): the last customers meet "sold out".
 */
export async function createPhysicalProducts(c: Pick<Client, 'api'>, key: string, jobs: PhysicalJob[]) {
  const productIds: number[] = [];
  const initialStock: number[] = [];
  for (let p = 0; p < PRODUCTS; p++) {
    const kept = jobs
      .filter((j) => j.product === p && j.card !== 'declining' && !j.cancel)
      .reduce((n, j) => n + j.quantity, 0);
    const stock = Math.max(3, Math.round(kept * 0.85));
    const res = await c.api(key, 'POST', '/products', {
      title: `Chaos mug ${p + 1}`,
      type: 'physical',
      price: { amount: 400_000 + p * 50_000, currency: 'NGN' },
      stock,
      shipping: { fee: { amount: 150_000, currency: 'NGN' }, countries: ['NG', 'GH'] },
    });
    if (res.status !== 200) throw new Error(`product ${p}: ${res.status} ${JSON.stringify(res.body)}`);
    productIds.push(res.body.data.id as number);
    initialStock.push(stock);
  }
  return { key, productIds, initialStock };
}

/** The hosted page's form posted as the browser does (no redirect followed); no answer is `undefined`. */
async function postForm(c: Client, sessionId: string, card: string) {
  const form = new URLSearchParams({
    card_number: card,
    expiry: '12/34',
    cvc: '123',
    name: 'Ada Obi',
    ship_name: 'Ada Obi',
    ship_line1: '12 Ring Road',
    ship_city: 'Accra',
    ship_country: 'GH',
  });
  try {
    const res = await fetch(`${c.gateway}/checkout/${sessionId}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
      redirect: 'manual',
    });
    return { status: res.status, page: await res.text() };
  } catch {
    return undefined;
  }
}

/**
 * Pays the session with `card` as a customer would: 303 is paid, 402 declined, 409 with the sold-out page
 * sold out. No answer, a 5xx or "already being processed" (409) is an unknown outcome: the session's
 * status decides (completed: paid; failed: declined for good), and a session still pending is paid again
 * (a paid one is never charged twice: the page answers it as paid).
 */
async function pay(c: Client, s: PhysicalSetup, job: PhysicalJob, card: string, deadline: number) {
  for (let attempt = 1; ; attempt++) {
    const res = await postForm(c, job.sessionId!, card);
    if (res?.status === 303) return 'paid' as const;
    if (res?.status === 402) return 'declined' as const;
    if (res?.status === 409 && res.page.includes('data-testid="sold-out"')) return 'sold_out' as const;
    const unexpected = res && res.status < 500 && res.status !== 409 && res.status !== 429;
    const session = await c.until200(
      `session ${job.index} status`,
      () => c.api(s.key, 'GET', `/payments/sessions/${job.sessionId}`),
      deadline,
    );
    const status = session.body.data.status as string;
    if (status === 'completed') return 'paid' as const;
    if (status === 'failed') return 'declined' as const;
    if (unexpected) throw new Error(`pay ${job.index}: ${res.status} ${res.page.slice(0, 500)}`);
    if (status !== 'pending') throw new Error(`pay ${job.index}: session ${status}`);
    if (Date.now() > deadline) throw new Error(`pay ${job.index}: still ${res?.status ?? 'no answer'}`);
    c.retried();
    await sleep(Math.min(2_000, 50 * 2 ** Math.min(attempt, 6)));
  }
}

/** The order of a paid session, as a merchant finds it: GET /orders of the product since the purchase began. */
async function findOrder(c: Client, s: PhysicalSetup, job: PhysicalJob, since: Date, deadline: number) {
  for (;;) {
    let cursor: string | null = null;
    do {
      const query: string = `product_id=${s.productIds[job.product]}&from=${since.toISOString()}&limit=100`;
      const page = await c.until200(
        `orders of ${job.index}`,
        () => c.api(s.key, 'GET', `/orders?${query}${cursor ? `&cursor=${cursor}` : ''}`),
        deadline,
      );
      const found = (page.body.data.orders as { order_id: string; session_id: string }[]).find(
        (o) => o.session_id === job.sessionId,
      );
      if (found) return found.order_id;
      cursor = page.body.data.next_cursor;
    } while (cursor);
    // Made by the payment.succeeded consumer when the page's own write was lost to a kill.
    if (Date.now() > deadline) throw new Error(`order of ${job.index}: not found`);
    c.retried();
    await sleep(500);
  }
}

/** One purchase: its session, the payment(s) its plan says, and the cancel of its order if planned. */
export async function buyPhysical(c: Client, s: PhysicalSetup, job: PhysicalJob, deadline: number) {
  const since = new Date(Date.now() - 5_000);
  const created = await c.until200(
    `physical session ${job.index}`,
    () =>
      c.api(
        s.key,
        'POST',
        '/payments/sessions',
        {
          product_id: s.productIds[job.product],
          quantity: job.quantity,
          customer: { email: `buyer-${job.index}@example.com`, first_name: 'Ada', last_name: 'Obi' },
        },
        { 'idempotency-key': job.sessionKey },
      ),
    deadline,
  );
  job.sessionId = created.body.data.session_id;
  if (job.card !== 'good') {
    job.outcome = await pay(c, s, job, CARDS.declined, deadline);
    if (job.outcome === 'paid') throw new Error(`pay ${job.index}: a declining card was approved`);
    if (job.card === 'declining' || job.outcome === 'sold_out') return;
  }
  job.outcome = await pay(c, s, job, CARDS.approved, deadline);
  if (job.outcome === 'declined') throw new Error(`pay ${job.index}: a good card was declined`);
  if (job.outcome !== 'paid' || !job.cancel) return;
  job.orderId = await findOrder(c, s, job, since, deadline);
  const cancelled = await c.until200(
    `cancel ${job.index}`,
    () => c.api(s.key, 'POST', `/orders/${job.orderId}/cancel`, { reason: 'the customer changed their mind' }),
    deadline,
    ['ORDER_STATUS_CONFLICT'],
  );
  if (cancelled.status !== 200) {
    // A 409 after a lost answer: the earlier try cancelled it, which the order itself must say.
    const order = await c.until200(`order ${job.index}`, () => c.api(s.key, 'GET', `/orders/${job.orderId}`), deadline);
    if (order.body.data.status !== 'cancelled') {
      throw new Error(`cancel ${job.index}: 409 but the order is ${order.body.data.status}`);
    }
  }
  job.cancelled = true;
}

interface OrderView {
  order_id: string;
  session_id: string;
  charge_id: string;
  status: string;
  quantity: number;
  product: { id: number };
}

/** Every order of the merchant's products, through GET /orders (pages of 100). */
async function allOrders(c: Client, s: PhysicalSetup, deadline: number): Promise<OrderView[]> {
  const all: OrderView[] = [];
  for (const productId of s.productIds) {
    let cursor: string | null = null;
    do {
      const query: string = `product_id=${productId}&limit=100${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await c.until200('orders', () => c.api(s.key, 'GET', `/orders?${query}`), deadline);
      all.push(...page.body.data.orders);
      cursor = page.body.data.next_cursor;
    } while (cursor);
  }
  return all;
}

export interface PhysicalReport {
  purchases: number;
  paid: number;
  soldOut: number;
  declined: number;
  cancelled: number;
  /** Each product's stock: initial − paid + cancelled = expected, and what it is. */
  stock: string;
  /** What must all be 0. */
  wrong: {
    /** The client's outcome differs from the session's status. */
    outcomes: number;
    ordersMissing: number;
    ordersDuplicated: number;
    ordersForUnpaid: number;
    /** Paid sessions without exactly one stored charge (or an order naming another), unpaid ones with one. */
    charges: number;
    /** Cancelled orders not refunded exactly once in full, others refunded, planned cancels not done. */
    refunds: number;
    stock: number;
    holdsLeft: number;
  };
}

/**
 * After the load: waits for the orders consumer, the stock sweep and the order sweep to catch up, then
 * counts what is wrong (the sessions' own statuses, not the client's view, say which are paid).
 */
export async function checkPhysical(
  c: Client & { payments: Connection; fxPricing: Connection },
  s: PhysicalSetup,
  jobs: PhysicalJob[],
): Promise<PhysicalReport> {
  const deadline = Date.now() + 3 * 60_000;
  const statuses = new Map<string, string>();
  for (const j of jobs) {
    const res = await c.until200(
      `session ${j.index}`,
      () => c.api(s.key, 'GET', `/payments/sessions/${j.sessionId}`),
      deadline,
    );
    statuses.set(j.sessionId!, res.body.data.status);
  }
  const paid = jobs.filter((j) => statuses.get(j.sessionId!) === 'completed');
  const sessionIds = jobs.map((j) => j.sessionId!);
  const products = () =>
    c.fxPricing
      .collection('products')
      .find({ _id: { $in: s.productIds } as never })
      .toArray();
  const ordersBySession = async () => {
    const counts = await c.payments
      .collection('orders')
      .aggregate<{ _id: string; n: number }>([
        { $match: { session_id: { $in: sessionIds } } },
        { $group: { _id: '$session_id', n: { $sum: 1 } } },
      ])
      .toArray();
    return new Map(counts.map((x) => [x._id, x.n]));
  };
  // Settled: every paid session has its order, every cancel its stock back, and no hold is left open.
  await eventually(
    async () => {
      const stored = await ordersBySession();
      if (paid.some((j) => !stored.has(j.sessionId!))) return false;
      const unfinished = await c.payments
        .collection('orders')
        .countDocuments({ session_id: { $in: sessionIds }, unfinished: true });
      const held = (await products()).reduce((n, p) => n + Object.keys(p.stock_holds ?? {}).length, 0);
      return unfinished === 0 && held === 0;
    },
    120_000,
    1_000,
  );

  const stored = await ordersBySession();
  const listed = await allOrders(c, s, deadline);
  const listedBySession = new Map<string, OrderView[]>();
  for (const o of listed) listedBySession.set(o.session_id, [...(listedBySession.get(o.session_id) ?? []), o]);
  const charges = await c.payments
    .collection('charges')
    .find({ reference: { $in: sessionIds } })
    .project({ _id: 1, reference: 1 })
    .toArray();
  const chargesOf = new Map<string, string[]>();
  for (const ch of charges) chargesOf.set(ch.reference, [...(chargesOf.get(ch.reference) ?? []), String(ch._id)]);

  const wrong: PhysicalReport['wrong'] = {
    outcomes: jobs.filter((j) => (j.outcome === 'paid') !== (statuses.get(j.sessionId!) === 'completed')).length,
    ordersMissing: 0,
    ordersDuplicated: 0,
    ordersForUnpaid: 0,
    charges: 0,
    refunds: 0,
    stock: 0,
    holdsLeft: 0,
  };
  const report: PhysicalReport = {
    purchases: jobs.length,
    paid: paid.length,
    soldOut: jobs.filter((j) => j.outcome === 'sold_out').length,
    declined: jobs.filter((j) => j.outcome === 'declined').length,
    cancelled: listed.filter((o) => o.status === 'cancelled').length,
    stock: '',
    wrong,
  };
  for (const j of jobs) {
    const inDb = stored.get(j.sessionId!) ?? 0;
    const inList = listedBySession.get(j.sessionId!) ?? [];
    if (statuses.get(j.sessionId!) !== 'completed') {
      if (inDb + inList.length > 0) wrong.ordersForUnpaid++;
      if (chargesOf.has(j.sessionId!)) wrong.charges++;
      continue;
    }
    if (inDb === 0 || inList.length === 0) wrong.ordersMissing++;
    wrong.ordersDuplicated += Math.max(0, inDb - 1, inList.length - 1);
    const charged = chargesOf.get(j.sessionId!) ?? [];
    if (charged.length !== 1 || inList.some((o) => o.charge_id !== charged[0])) wrong.charges++;
    // A cancelled order's charge is refunded once, in full; any other's not at all.
    for (const o of inList) {
      const charge = await c.until200(
        `charge of ${o.order_id}`,
        () => c.api(s.key, 'GET', `/payments/charges/${o.charge_id}`),
        deadline,
      );
      const { refunds, refunded } = charge.body.data as { refunds: unknown[]; refunded: boolean };
      const ok = o.status === 'cancelled' ? refunds.length === 1 && refunded : refunds.length === 0 && !refunded;
      if (!ok || (o.status === 'cancelled') !== Boolean(j.cancel)) wrong.refunds++;
    }
  }

  const docs = await products();
  const lines: string[] = [];
  for (const [p, productId] of s.productIds.entries()) {
    const sold = paid.filter((j) => j.product === p).reduce((n, j) => n + j.quantity, 0);
    const back = listed
      .filter((o) => o.product.id === productId && o.status === 'cancelled')
      .reduce((n, o) => n + o.quantity, 0);
    const want = s.initialStock[p] - sold + back;
    const got = (await c.until200('product', () => c.api(s.key, 'GET', `/products/${productId}`), deadline)).body.data
      .stock as number;
    if (got !== want) wrong.stock++;
    const holds = Object.keys(docs.find((d) => Number(d._id) === productId)?.stock_holds ?? {});
    wrong.holdsLeft += holds.length;
    lines.push(
      `${s.initialStock[p]} − ${sold} + ${back} = ${want}, is ${got}${holds.length ? ` (holds ${holds})` : ''}`,
    );
  }
  report.stock = lines.join('; ');
  return report;
}

/** The summary line of the physical purchases (beside the disputes' one). */
export function physicalSummary(r: PhysicalReport): string {
  const w = r.wrong;
  return (
    `  physical purchases ${r.purchases}: paid ${r.paid}, sold out ${r.soldOut}, declined ${r.declined}, cancelled ${r.cancelled};` +
    ` orders missing ${w.ordersMissing}, duplicated ${w.ordersDuplicated}, for unpaid sessions ${w.ordersForUnpaid};` +
    ` stock wrong ${w.stock} (${r.stock}), holds left ${w.holdsLeft};` +
    ` charges wrong ${w.charges}, refunds wrong ${w.refunds}, outcomes wrong ${w.outcomes}`
  );
}
