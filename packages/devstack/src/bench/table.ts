/** One line of `npm run bench -- all`: each case's figures against its own reference from the same run. */
export interface CaseResult {
  name: string;
  /** The platform's figures, as printed. */
  platform: string;
  /** The ceiling or baseline it is measured against, from the same run. */
  reference: string;
  ratio: string;
  target: string;
  /** Every target met (null when the case has none). */
  pass: boolean | null;
  /** Errors, failed requests or broken invariants (e.g. a double charge): the bench exits non-zero. */
  failed: boolean;
}

export function printTable(results: CaseResult[]): void {
  const rows = results.map((r) => [
    r.name,
    r.platform,
    r.reference,
    r.ratio,
    r.target,
    r.failed ? 'FAILED' : r.pass === null ? '-' : r.pass ? 'pass' : 'below target',
  ]);
  const header = ['case', 'platform', 'ceiling or baseline', 'ratio', 'target', 'result'];
  const lines = [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`);
  process.stdout.write(`\n${lines.join('\n')}\n`);
}
