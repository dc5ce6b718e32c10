import type { HistoryEntry, KycCaseRecord } from './kyc-case';

/**
 * A case's history is an audit trail kept inside the case document, so it is capped: the newest
 * MAX_HISTORY entries are kept whole, and older ones are folded into a summary (how many, when the
 * first and last of them happened, how many of each action). However often a case changes, its
 * document stays bounded; no entry is written for a request that changes nothing.
 */
export const MAX_HISTORY = 50;

type WithHistory = Pick<KycCaseRecord, 'history' | 'history_summary'>;

/** The case's history with `entries` appended, the oldest beyond MAX_HISTORY folded into the summary. */
export function appendHistory(c: Partial<WithHistory> | null, ...entries: HistoryEntry[]): WithHistory {
  const all = [...(c?.history ?? []), ...entries];
  let summary = c?.history_summary ?? null;
  const excess = all.length - MAX_HISTORY;
  if (excess <= 0) return { history: all, history_summary: summary };
  for (const e of all.slice(0, excess)) {
    summary = {
      dropped: (summary?.dropped ?? 0) + 1,
      first_at: summary?.first_at ?? e.at,
      last_at: e.at,
      actions: { ...summary?.actions, [e.action]: (summary?.actions[e.action] ?? 0) + 1 },
    };
  }
  return { history: all.slice(excess), history_summary: summary };
}
