import type { Connection } from 'mongoose';
import { eventually, type TestPlatform } from '../support/platform';
import type { ChaosApi, Until200 } from './client';

/** A charge of the load that is disputed, and how its dispute is decided. */
export interface Job {
  index: number;
  key: string;
  chargeId?: string;
  dispute?: 'winning_evidence' | 'accept' | 'won' | 'lost';
  disputeId?: string;
}

/** The reasons of the entries a payment itself writes (disputes add theirs on top). */
export const PAYMENT_REASONS = ['payment', 'marketplace_operator', 'marketplace_split'];

/**
 * Opens the job's dispute and decides it, retrying like a partner: a 409 that says an earlier try of
 * the same call took effect (its answer was lost to a kill) counts as done.
 */
export async function disputeAndDecide(c: { api: ChaosApi; until200: Until200 }, job: Job, deadline: number) {
  const opened = await c.until200(
    `dispute ${job.index}`,
    () => c.api(job.key, 'POST', `/sandbox/charges/${job.chargeId}/dispute`, { reason: 'fraudulent' }),
    deadline,
    ['CHARGE_ALREADY_DISPUTED'],
  );
  job.disputeId =
    opened.status === 200
      ? opened.body.data.dispute_id
      : (
          await c.until200(
            `dispute ${job.index} lookup`,
            () => c.api(job.key, 'GET', `/disputes?charge_id=${job.chargeId}`),
            deadline,
          )
        ).body.data.disputes[0].dispute_id;
  const id = job.disputeId!;
  if (job.dispute === 'won' || job.dispute === 'lost') {
    await c.until200(
      `evidence ${job.index}`,
      () => c.api(job.key, 'POST', `/disputes/${id}/evidence`, { customer_name: 'Ada', submit: true }),
      deadline,
      ['DISPUTE_EVIDENCE_SUBMITTED'],
    );
  }
  const decide = {
    winning_evidence: () =>
      c.api(job.key, 'POST', `/disputes/${id}/evidence`, { uncategorized_text: 'winning_evidence', submit: true }),
    accept: () => c.api(job.key, 'POST', `/disputes/${id}/accept`),
    won: () => c.api(job.key, 'POST', `/sandbox/disputes/${id}/won`),
    lost: () => c.api(job.key, 'POST', `/sandbox/disputes/${id}/lost`),
  };
  await c.until200(`decide ${job.index}`, decide[job.dispute!], deadline, [
    'DISPUTE_EVIDENCE_SUBMITTED',
    'DISPUTE_CLOSED',
  ]);
}

const closedStatus = (j: Job) => (j.dispute === 'winning_evidence' || j.dispute === 'won' ? 'won' : 'lost');
type Funds = { merchant_id: number; amount: { currency: string; amount: number } }[];
const shapeOf = (list: Funds) => list.map((f) => `${f.merchant_id}:${f.amount.currency}:${f.amount.amount}`).sort();

/**
 * After the load: every dispute closed as decided, its money moved exactly once (its withdrawals, and
 * their reinstatement if won, as its own record says; nothing else for its charge), and every wallet of
 * the merchants equal to the sum of its entries.
 */
export async function checkDisputeMoney(
  c: { api: ChaosApi; payments: Connection; t: TestPlatform },
  disputed: Job[],
  merchants: number[],
): Promise<{ disputesWrong: number; walletsWrong: number }> {
  const disputes = new Map<string, { status: string; funds_withdrawn: Funds; funds_reinstated: Funds }>();
  await eventually(
    async () => {
      for (const j of disputed) {
        if (disputes.get(j.disputeId!)?.status === closedStatus(j)) continue;
        const res = await c.api(j.key, 'GET', `/disputes/${j.disputeId}`);
        if (res.status === 200) disputes.set(j.disputeId!, res.body.data);
      }
      return disputed.every((j) => disputes.get(j.disputeId!)?.status === closedStatus(j));
    },
    120_000,
    1_000,
  );
  const entries = async () => {
    const docs = await c.payments
      .collection('ledger_entries')
      .find({ charge_id: { $in: disputed.map((j) => j.chargeId!) }, reason: { $nin: PAYMENT_REASONS } })
      .toArray();
    const by = new Map<string, { debits: string[]; credits: string[] }>();
    for (const d of docs) {
      const e = by.get(d.charge_id) ?? { debits: [], credits: [] };
      (d.kind === 'debit' ? e.debits : e.credits).push(`${d.merchant_id}:${d.amount.currency}:${d.amount.amount}`);
      by.set(d.charge_id, e);
    }
    return by;
  };
  const want = [...disputes.values()].reduce((n, d) => n + d.funds_withdrawn.length + d.funds_reinstated.length, 0);
  await eventually(
    async () => [...(await entries()).values()].reduce((n, e) => n + e.debits.length + e.credits.length, 0) >= want,
    60_000,
    500,
  );
  const moved = await entries();
  let disputesWrong = 0;
  for (const j of disputed) {
    const d = disputes.get(j.disputeId!);
    const got = moved.get(j.chargeId!) ?? { debits: [], credits: [] };
    const ok =
      d?.status === closedStatus(j) &&
      d.funds_withdrawn.length > 0 &&
      JSON.stringify(got.debits.sort()) === JSON.stringify(shapeOf(d.funds_withdrawn)) &&
      JSON.stringify(got.credits.sort()) === JSON.stringify(shapeOf(d.funds_reinstated)) &&
      (d.status === 'won') === d.funds_reinstated.length > 0;
    if (!ok) disputesWrong++;
  }
  let walletsWrong = 0;
  for (const merchantId of merchants) {
    const sums = await c.payments
      .collection('ledger_entries')
      .aggregate<{ _id: { currency: string; kind: string }; total: number }>([
        { $match: { merchant_id: merchantId, mode: 'sandbox' } },
        { $group: { _id: { currency: '$amount.currency', kind: '$kind' }, total: { $sum: '$amount.amount' } } },
      ])
      .toArray();
    for (const w of await c.t.walletBalances(merchantId)) {
      const sum = (kind: string) => sums.find((x) => x._id.currency === w.currency && x._id.kind === kind)?.total ?? 0;
      if (w.total_credits !== sum('credit') || w.total_debits !== sum('debit')) walletsWrong++;
    }
  }
  return { disputesWrong, walletsWrong };
}
