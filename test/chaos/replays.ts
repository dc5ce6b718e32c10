import type { ChaosApi, Until200 } from './client';

/** A charge of the load and the answers it got, to be asked again with the same Idempotency-Keys. */
export interface ReplayJob {
  index: number;
  key: string;
  body: Record<string, unknown>;
  chargeKey: string;
  outcomeKey: string;
  outcome: 'succeed' | 'fail';
  chargeId?: string;
  chargeData?: Record<string, unknown>;
  outcomeData?: Record<string, unknown>;
}

/**
 * Every Idempotency-Key replay answers the original charge and outcome. The gateway replays the stored
 * answer byte for byte; when its store was unreachable (NATS killed) at the first answer, payments still
 * dedupes by key and answers the same charge as it is now, so only `status` may have moved on
 * (docs/decisions.md, Hardening 18), and `amount_disputed` for a charge disputed since. Anything else
 * that differs is a failure.
 */
export async function replayCharges(c: { api: ChaosApi; until200: Until200 }, jobs: ReplayJob[], concurrency: number) {
  const MAY_MOVE_ON = ['status', 'amount_disputed'];
  const replays = { identical: 0, currentStatus: 0, different: [] as string[] };
  const compare = (label: string, original: Record<string, unknown>, again: Record<string, unknown>) => {
    const keys = new Set([...Object.keys(original), ...Object.keys(again)]);
    const changed = [...keys].filter((k) => JSON.stringify(original[k]) !== JSON.stringify(again[k]));
    if (changed.length === 0) replays.identical++;
    else if (changed.every((k) => MAY_MOVE_ON.includes(k))) replays.currentStatus++;
    else replays.different.push(`${label}: ${changed.join(', ')}`);
  };
  const deadline = Date.now() + 3 * 60_000;
  let next = 0;
  const replayer = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      const again = await c.until200(
        `replay charge ${job.index}`,
        () => c.api(job.key, 'POST', '/payments/charge', job.body, { 'idempotency-key': job.chargeKey }),
        deadline,
      );
      const outcomeAgain = await c.until200(
        `replay outcome ${job.index}`,
        () =>
          c.api(job.key, 'POST', `/sandbox/charges/${job.chargeId}/${job.outcome}`, undefined, {
            'idempotency-key': job.outcomeKey,
          }),
        deadline,
      );
      compare(`charge ${job.index}`, job.chargeData!, again.body.data);
      compare(`outcome ${job.index}`, job.outcomeData!, outcomeAgain.body.data);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, replayer));
  return replays;
}
