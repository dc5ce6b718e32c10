import {
  cpuTotalMs,
  fmtCpuUs,
  meanEntries,
  ratioLine,
  tableFigures,
  verdictOf,
  type WebhookFigures,
} from './webhooks-report';

describe('what the webhooks bench reports', () => {
  const figures = (platformRate: number, durableRate: number, p99: number): WebhookFigures => ({
    platform: {
      rate: platformRate,
      cpu: [
        ['webhooks', 0.7],
        ['ferretdb', 0.365],
        ['payments', 0.004],
      ],
    },
    durable: { rate: durableRate, cpu: [['durable loop', 0.3]] },
    bare: { rate: 4000, cpuUs: 290.4 },
    p99,
  });

  it('prints CPU per delivery in µs, leaving out processes under 10 µs but counting them in the total', () => {
    const cpu = figures(1000, 1600, 20).platform.cpu;
    expect(cpuTotalMs(cpu)).toBeCloseTo(1.069, 6);
    expect(fmtCpuUs(cpu)).toBe('webhooks 700, ferretdb 365 µs (total 1,069 µs)');
    expect(fmtCpuUs([])).toBe('none µs (total 0 µs)');
  });

  it('holds the platform to 0.6x the durable baseline, 1,000 deliveries/s and p99 500 ms, all three', () => {
    const met = verdictOf(figures(1200, 2000, 500));
    expect(met).toMatchObject({ ratioMet: true, rateMet: true, p99Met: true, pass: true });
    expect(met.durableRatio).toBeCloseTo(0.6, 9);
    expect(met.bareRatio).toBeCloseTo(0.3, 9);
    expect(verdictOf(figures(1199, 2000, 20))).toMatchObject({ ratioMet: false, pass: false });
    expect(verdictOf(figures(999, 1000, 20))).toMatchObject({ ratioMet: true, rateMet: false, pass: false });
    expect(verdictOf(figures(1200, 1200, 501))).toMatchObject({ p99Met: false, pass: false });
  });

  it('shows the durable ratio with its target beside the bare loop’s, in the line and in the table row', () => {
    const f = figures(1095, 2190, 23);
    const v = verdictOf(f);
    expect(ratioLine(v)).toBe(
      '  ratio     0.50x the durable baseline (target >= 0.6x) BELOW TARGET;   0.27x the bare loop;   >= 1,000 deliveries/s: PASS',
    );
    expect(tableFigures(f, v)).toEqual({
      platform: '1,095 deliveries/s, 1,069 µs cpu/delivery (all processes), p99 23 ms at 200/s',
      reference: 'durable baseline 2,190 deliveries/s, 300 µs cpu/delivery; bare HMAC + POST loop 4,000/s, 290 µs',
      ratio: '0.50x the durable baseline (0.27x the bare loop)',
      target: '>= 0.6x durable, >= 1,000/s, p99 <= 500 ms',
      pass: false,
    });
  });

  it('averages bursts of equal size key by key, a process missing from one burst counting as 0 there', () => {
    expect(
      meanEntries([
        [
          ['webhooks', 0.8],
          ['ferretdb', 0.4],
        ],
        [
          ['ferretdb', 0.3],
          ['webhooks', 0.6],
          ['payments', 0.02],
        ],
      ]),
    ).toEqual([
      ['webhooks', expect.closeTo(0.7, 9)],
      ['ferretdb', expect.closeTo(0.35, 9)],
      ['payments', expect.closeTo(0.01, 9)],
    ]);
    expect(meanEntries([])).toEqual([]);
  });
});
