import { trustProxyOption } from './config';

describe('TRUST_PROXY', () => {
  it('trusts nobody by default', () => {
    expect(trustProxyOption('')).toBe(false);
    expect(trustProxyOption(' false ')).toBe(false);
  });

  it('refuses "true": any client could choose its address through X-Forwarded-For', () => {
    expect(() => trustProxyOption('true')).toThrow(/hop count or the proxies/);
  });

  it('a hop count trusts exactly that many proxies in front', () => {
    const trust = trustProxyOption('1') as (address: string, hop: number) => boolean;
    expect([trust('10.0.0.1', 0), trust('203.0.113.9', 1)]).toEqual([true, false]);
    const two = trustProxyOption('2') as (address: string, hop: number) => boolean;
    expect([two('a', 0), two('b', 1), two('c', 2)]).toEqual([true, true, false]);
  });

  it('passes addresses and CIDRs through to Fastify', () => {
    expect(trustProxyOption('10.0.0.0/8, 192.168.1.4')).toBe('10.0.0.0/8, 192.168.1.4');
  });
});
