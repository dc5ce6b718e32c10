import { dbWork, fmtDbWork, parseFerretdbCommands } from './db-work';

describe('the database work a bench prints per request', () => {
  const page = (insert: number, fam: number) =>
    [
      '# HELP ferretdb_client_requests_total Total number of requests.',
      '# TYPE ferretdb_client_requests_total counter',
      `ferretdb_client_requests_total{command="findAndModify",opcode="OP_MSG"} ${fam}`,
      `ferretdb_client_requests_total{command="insert",opcode="OP_MSG"} ${insert}`,
      `ferretdb_client_requests_total{command="ping",opcode="OP_MSG"} 40`,
      `ferretdb_client_requests_total{command="unknown",opcode="OP_QUERY"} 2`,
      `ferretdb_client_responses_total{argument="unknown",command="insert",opcode="OP_MSG",result="ok"} ${insert}`,
    ].join('\n');

  it('reads the command counters, leaving out the driver’s own housekeeping and the responses', () => {
    expect([...parseFerretdbCommands(page(7, 3))]).toEqual([
      ['findAndModify', 3],
      ['insert', 7],
    ]);
  });

  it('divides the differences by the requests, largest first, and says which collections grew', () => {
    const before = {
      commands: parseFerretdbCommands(page(10, 5)),
      documents: new Map([
        ['ppay_payments.charges', 100],
        ['ppay_payments.charge_keys', 4],
      ]),
    };
    const after = {
      commands: parseFerretdbCommands(page(210, 405)),
      documents: new Map([
        ['ppay_payments.charges', 300],
        ['ppay_payments.charge_keys', 4],
        ['ppay_webhooks.events', 200],
      ]),
    };
    const work = dbWork(before, after, 200);
    // The snapshot's own commands (its document counts) between its two readings are not the requests'.
    expect(dbWork({ ...before, commandsAfter: parseFerretdbCommands(page(10, 25)) }, after, 200).commands).toEqual([
      ['findAndModify', 1.9],
      ['insert', 1],
    ]);
    expect(work.commands).toEqual([
      ['findAndModify', 2],
      ['insert', 1],
    ]);
    expect(work.documents).toEqual([
      ['ppay_payments.charges', 1],
      ['ppay_webhooks.events', 1],
    ]);
    expect(fmtDbWork(work)).toBe(
      'db commands/req 3.00 (findAndModify 2.00, insert 1.00); documents added/req 2.00 (ppay_payments.charges 1.00, ppay_webhooks.events 1.00)',
    );
  });
});
