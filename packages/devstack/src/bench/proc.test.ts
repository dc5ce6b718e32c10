import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cpuSecondsOf, infraPids, rssBytesOf, totalCpuSeconds } from './proc';
import { printTable } from './table';

describe('bench process figures (/proc)', () => {
  it('CPU time grows with work done and memory is the resident set', () => {
    const before = cpuSecondsOf(process.pid);
    // Busy until the reading has moved by 50 ms of CPU (wall time varies on a loaded machine).
    const deadline = Date.now() + 10_000;
    let spin = 0;
    while (cpuSecondsOf(process.pid) - before < 0.05 && Date.now() < deadline) {
      const slice = Date.now() + 10;
      while (Date.now() < slice) spin++;
    }
    expect(spin).toBeGreaterThan(0);
    const used = cpuSecondsOf(process.pid) - before;
    expect(used).toBeGreaterThanOrEqual(0.05);
    expect(used).toBeLessThan(10);
    expect(rssBytesOf(process.pid)).toBeGreaterThan(10 * 1024 * 1024);
    expect(totalCpuSeconds([process.pid, process.pid])).toBeCloseTo(2 * cpuSecondsOf(process.pid), 1);
  });

  it('a process that is gone counts as nothing, and infra pids come from infra.sh pid files', () => {
    expect(cpuSecondsOf(2 ** 22 + 1)).toBe(0);
    expect(rssBytesOf(2 ** 22 + 1)).toBe(0);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infra-'));
    fs.mkdirSync(path.join(dir, 'ferretdb'));
    fs.writeFileSync(path.join(dir, 'ferretdb', 'ferretdb.pid'), '4242\n');
    expect(infraPids(dir)).toEqual([4242]);
  });

  it('prints one markdown table line per case with its verdict', () => {
    const out: string[] = [];
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((s) => out.push(String(s)) > 0);
    printTable([
      { name: 'a', platform: '1', reference: '2', ratio: '0.5x', target: '>= 0.8x', pass: false, failed: false },
      { name: 'b', platform: '3', reference: '3', ratio: '1x', target: '', pass: null, failed: true },
    ]);
    write.mockRestore();
    const lines = out.join('').trim().split('\n');
    expect(lines[0]).toBe('| case | platform | ceiling or baseline | ratio | target | result |');
    expect(lines[2]).toBe('| a | 1 | 2 | 0.5x | >= 0.8x | below target |');
    expect(lines[3]).toBe('| b | 3 | 3 | 1x |  | FAILED |');
  });
});
