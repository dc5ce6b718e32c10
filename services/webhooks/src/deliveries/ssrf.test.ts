import type { LookupAddress } from 'node:dns';
import { PlatformError } from '@ppay/kernel';
import {
  BlockedTargetError,
  checkWebhookUrl,
  classifyAddress,
  guardedLookup,
  isAllowedTarget,
  type AddressCategory,
  type LookupAll,
  type WebhookUrlPolicy,
} from './ssrf';

const TABLE: [string, AddressCategory][] = [
  // IPv4 public
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['100.63.255.255', 'public'],
  ['100.128.0.0', 'public'],
  ['172.15.255.255', 'public'],
  ['172.32.0.0', 'public'],
  ['169.253.255.255', 'public'],
  ['198.17.255.255', 'public'],
  ['198.20.0.0', 'public'],
  ['223.255.255.255', 'public'],
  ['192.0.1.1', 'public'],
  // IPv4 special
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['169.254.0.1', 'link_local'],
  ['169.254.169.253', 'link_local'],
  ['169.254.169.254', 'metadata'],
  ['169.254.170.2', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['192.0.0.192', 'metadata'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.10', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.99', 'documentation'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['192.88.99.1', 'reserved'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  // IPv6 native
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['2606:4700:4700::1111', 'public'],
  ['2001:4860:4860::8888', 'public'],
  ['2a00:1450:4001::1', 'public'],
  ['3ffe::1', 'public'],
  ['fc00::1', 'unique_local'],
  ['fd12:3456:789a::1', 'unique_local'],
  ['fd00:ec2::254', 'metadata'],
  ['fd00:ec2::253', 'unique_local'],
  ['fe80::1', 'link_local'],
  ['fe80::1%eth0', 'link_local'],
  ['febf:ffff::1', 'link_local'],
  ['fec0::1', 'private'],
  ['ff02::1', 'multicast'],
  ['ff05::1:3', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001:2::1', 'reserved'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'], // Teredo
  ['100::1', 'reserved'],
  ['5f00::1', 'reserved'],
  ['::127.0.0.1', 'reserved'], // deprecated IPv4-compatible
  ['4000::1', 'reserved'],
  ['e000::1', 'reserved'],
  ['64:ff9b:1::a00:1', 'private'],
  // IPv4 inside IPv6: the embedded address decides
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:a9fe:a9fe', 'metadata'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::ffff:8.8.8.8', 'public'],
  ['::ffff:808:808', 'public'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b::7f00:1', 'loopback'],
  ['64:ff9b::a9fe:a9fe', 'metadata'],
  ['64:ff9b::c0a8:101', 'private'],
  ['64:ff9b::808:808', 'public'],
  ['2002:7f00:1::', 'loopback'],
  ['2002:7f00:0001:0:0:0:0:1', 'loopback'],
  ['2002:a9fe:a9fe::1', 'metadata'],
  ['2002:0a00:0001::', 'private'],
  ['2002:6440:1::', 'cgnat'],
  ['2002:c000:0201::', 'documentation'],
  ['2002:808:808::1', 'public'],
];

describe('classifyAddress', () => {
  it.each(TABLE)('%s → %s', (ip, category) => {
    expect(classifyAddress(ip)).toBe(category);
  });

  it.each(['localhost', '', '1.2.3', '127.1', '256.0.0.1', '01.2.3.4', 'gggg::1', ':::1', 'example.com'])(
    'rejects %j as not an IP address',
    (value) => {
      expect(() => classifyAddress(value)).toThrow(TypeError);
    },
  );

  it('answers the same for an address asked again, also after more addresses than its memo holds', () => {
    const asked = [...TABLE.map(([ip]) => ip)];
    for (let i = 0; i < 3_000; i++) asked.push(`10.${(i >> 8) & 255}.${i & 255}.1`, `8.8.${(i >> 8) & 255}.${i & 255}`);
    const answers = asked.map((ip) => classifyAddress(ip));
    expect(asked.map((ip) => classifyAddress(ip))).toEqual(answers);
    expect(answers.slice(0, TABLE.length)).toEqual(TABLE.map(([, category]) => category));
    expect(new Set(answers.slice(TABLE.length))).toEqual(new Set(['private', 'public']));
    expect(classifyAddress('169.254.169.254')).toBe('metadata');
  });
});

describe('isAllowedTarget', () => {
  const categories = [...new Set(TABLE.map(([, c]) => c))];

  it('allows only public addresses by default', () => {
    expect(categories.filter((c) => isAllowedTarget(c, false))).toEqual(['public']);
  });

  it('opens loopback, private, unique local and CGNAT with allowPrivateTargets, never metadata or link-local', () => {
    expect(categories.filter((c) => isAllowedTarget(c, true)).sort()).toEqual(
      ['cgnat', 'loopback', 'private', 'public', 'unique_local'].sort(),
    );
  });
});

describe('checkWebhookUrl', () => {
  const dns: Record<string, string[]> = {
    'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'internal.example.com': ['10.0.0.5'],
    'mixed.example.com': ['93.184.215.14', '127.0.0.1'],
    'metadata.example.com': ['169.254.169.254'],
    'mapped.example.com': ['::ffff:127.0.0.1'],
  };
  const resolve = async (host: string) => {
    if (!(host in dns)) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    return dns[host];
  };
  const live: WebhookUrlPolicy = { mode: 'live', allowPrivateTargets: false, resolve };
  const sandbox: WebhookUrlPolicy = { mode: 'sandbox', allowPrivateTargets: false, resolve };
  const devSandbox: WebhookUrlPolicy = { mode: 'sandbox', allowPrivateTargets: true, resolve };

  async function failure(raw: string, policy: WebhookUrlPolicy): Promise<PlatformError> {
    try {
      await checkWebhookUrl(raw, policy);
    } catch (err) {
      return err as PlatformError;
    }
    throw new Error(`${raw} was accepted`);
  }

  it('returns the normalised URL for public https targets', async () => {
    await expect(checkWebhookUrl('HTTPS://Hooks.Example.com:443/in?x=1#frag', live)).resolves.toBe(
      'https://hooks.example.com/in?x=1',
    );
    await expect(checkWebhookUrl('https://8.8.8.8/hook', live)).resolves.toBe('https://8.8.8.8/hook');
    await expect(checkWebhookUrl('https://[2606:4700:4700::1111]/h', live)).resolves.toBe(
      'https://[2606:4700:4700::1111]/h',
    );
    await expect(checkWebhookUrl('http://hooks.example.com/h', sandbox)).resolves.toBe('http://hooks.example.com/h');
  });

  it.each([
    ['not a url', 'webhook_url must be an absolute http(s) URL'],
    ['/relative/path', 'webhook_url must be an absolute http(s) URL'],
    ['ftp://hooks.example.com/x', 'webhook_url must be an absolute http(s) URL'],
    ['javascript:alert(1)', 'webhook_url must be an absolute http(s) URL'],
    ['https://user:pass@hooks.example.com/', 'webhook_url must not contain a user name or password'],
    ['https://user@hooks.example.com/', 'webhook_url must not contain a user name or password'],
    ['http://hooks.example.com/', 'webhook_url must use https for live keys'],
  ])('refuses %s for live keys', async (raw, message) => {
    const err = await failure(raw, live);
    expect(err).toBeInstanceOf(PlatformError);
    expect([err.code, err.message, err.param]).toEqual(['INVALID_WEBHOOK_URL', message, 'webhook_url']);
  });

  it('checks the length before anything else', async () => {
    const long = `https://hooks.example.com/${'a'.repeat(2048)}`;
    expect((await failure(long, live)).message).toBe('webhook_url must be at most 2048 characters');
    expect((await failure(`ftp://${'a'.repeat(2048)}`, live)).message).toMatch(/at most 2048/);
    const exact = `https://hooks.example.com/${'a'.repeat(2048 - 'https://hooks.example.com/'.length)}`;
    await expect(checkWebhookUrl(exact, live)).resolves.toBe(exact);
  });

  it.each([
    ['https://127.0.0.1/', /loopback address/],
    ['https://localhost/', /loopback address/],
    ['https://api.localhost./', /loopback address/],
    ['https://[::1]/', /loopback address/],
    ['https://0x7f.1/', /loopback address/], // WHATWG URL turns this into 127.0.0.1
    ['https://2130706433/', /loopback address/],
    ['https://[::ffff:127.0.0.1]/', /loopback address/],
    ['https://[64:ff9b::7f00:1]/', /loopback address/],
    ['https://[2002:7f00:1::1]/', /loopback address/],
    ['https://10.1.2.3/', /private network address/],
    ['https://100.64.1.1/', /carrier-grade NAT/],
    ['https://169.254.169.254/latest/meta-data/', /cloud metadata address/],
    ['https://[fd00:ec2::254]/', /cloud metadata address/],
    ['https://[fe80::1]/', /link-local address/],
    ['https://[fd00::1]/', /unique local/],
    ['https://0.0.0.0/', /unspecified address/],
    ['https://224.0.0.1/', /multicast address/],
    ['https://255.255.255.255/', /reserved address/],
    ['https://198.18.0.1/', /reserved address/],
    ['https://192.0.2.1/', /documentation-only address/],
    ['https://internal.example.com/', /host resolves to a private network address/],
    ['https://mixed.example.com/', /host resolves to a loopback address/],
    ['https://metadata.example.com/', /host resolves to a cloud metadata address/],
    ['https://mapped.example.com/', /host resolves to a loopback address/],
  ])('refuses %s for live keys, even with allowPrivateTargets', async (raw, message) => {
    for (const policy of [live, { ...live, allowPrivateTargets: true }]) {
      const err = await failure(raw, policy);
      expect([err.code, err.param]).toEqual(['INVALID_WEBHOOK_URL', 'webhook_url']);
      expect(err.message).toMatch(message);
    }
  });

  it('does not echo resolved addresses, which may describe internal networks', async () => {
    expect((await failure('https://internal.example.com/', live)).message).not.toContain('10.0.0.5');
  });

  it('lets sandbox keys reach private and loopback targets only with allowPrivateTargets', async () => {
    for (const raw of [
      'http://localhost:4000/hooks',
      'http://127.0.0.1:4000/hooks',
      'http://[::1]:4000/',
      'http://10.1.2.3/',
      'http://internal.example.com/',
      'http://100.64.0.7/',
    ]) {
      await expect(checkWebhookUrl(raw, devSandbox)).resolves.toBe(new URL(raw).href);
      expect((await failure(raw, sandbox)).code).toBe('INVALID_WEBHOOK_URL');
    }
  });

  it('never opens metadata, link-local or unroutable targets, even for sandbox with allowPrivateTargets', async () => {
    for (const raw of [
      'http://169.254.169.254/',
      'http://metadata.example.com/',
      'http://[fe80::1]/',
      'http://0.0.0.0/',
      'http://240.0.0.1/',
    ]) {
      expect((await failure(raw, devSandbox)).code).toBe('INVALID_WEBHOOK_URL');
    }
  });

  it('accepts a name that does not resolve yet (every attempt checks the connected address)', async () => {
    for (const resolve of [async () => [], async () => Promise.reject(new Error('ENOTFOUND'))]) {
      await expect(checkWebhookUrl('https://nowhere.example.com/x', { ...live, resolve })).resolves.toBe(
        'https://nowhere.example.com/x',
      );
    }
  });
});

describe('guardedLookup', () => {
  function fakeDns(answers: Record<string, LookupAddress[]>): LookupAll {
    return (hostname, _options, callback) => {
      const found = answers[hostname];
      if (!found) callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
      else callback(null, found);
    };
  }
  const answers = {
    'public.test': [
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ],
    // Passed checkWebhookUrl yesterday, answers 127.0.0.1 today: DNS rebinding.
    'rebind.test': [{ address: '127.0.0.1', family: 4 }],
    'mixed.test': [
      { address: '93.184.215.14', family: 4 },
      { address: '169.254.169.254', family: 4 },
    ],
    'empty.test': [],
  };

  function run(hostname: string, allowPrivateTargets: boolean, all: boolean) {
    const lookup = guardedLookup({ allowPrivateTargets, lookup: fakeDns(answers) });
    return new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) =>
      lookup(hostname, { all }, (err, address, family) => resolve({ err, address, family })),
    );
  }

  it('answers like dns.lookup, one address or all of them', async () => {
    expect(await run('public.test', false, false)).toEqual({ err: null, address: '93.184.215.14', family: 4 });
    expect(await run('public.test', false, true)).toEqual({
      err: null,
      address: answers['public.test'],
      family: undefined,
    });
  });

  it('refuses a rebound name with BlockedTargetError (code blocked_target)', async () => {
    const { err } = await run('rebind.test', false, false);
    expect(err).toBeInstanceOf(BlockedTargetError);
    expect(err).toMatchObject({ code: 'blocked_target', address: '127.0.0.1', category: 'loopback' });
    expect((await run('rebind.test', false, true)).err).toBeInstanceOf(BlockedTargetError);
  });

  it('refuses when any address is blocked, and metadata even with allowPrivateTargets', async () => {
    expect((await run('mixed.test', true, false)).err).toMatchObject({ category: 'metadata' });
  });

  it('allows private targets when told to', async () => {
    expect(await run('rebind.test', true, false)).toEqual({ err: null, address: '127.0.0.1', family: 4 });
  });

  it('passes resolver errors through and reports an empty answer as ENOTFOUND', async () => {
    expect((await run('missing.test', false, false)).err).toMatchObject({ code: 'ENOTFOUND' });
    expect((await run('empty.test', false, false)).err).toMatchObject({ code: 'ENOTFOUND' });
  });
});
