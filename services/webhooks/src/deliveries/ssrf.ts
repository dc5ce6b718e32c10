import type { LookupAddress, LookupAllOptions } from 'node:dns';
import { BlockList, isIP, isIPv4, type LookupFunction } from 'node:net';
import { PlatformError, type Mode } from '@ppay/kernel';

/**
 * Server-side request forgery guard for webhook targets. Merchants choose the URL, so without it
 * the delivery worker would POST wherever they point: our own pods, the cloud metadata endpoint,
 * the database. Two checks, because DNS can change between them:
 *  1. `checkWebhookUrl` when the URL is saved, for a clear 400;
 *  2. `guardedLookup` inside every connection, on the address actually connected to, so a name
 *     that later re-resolves to 127.0.0.1 (DNS rebinding) is refused.
 */
export type AddressCategory =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cgnat'
  | 'metadata'
  | 'unique_local'
  | 'multicast'
  | 'unspecified'
  | 'reserved'
  | 'documentation';

type Table = readonly (readonly [AddressCategory, BlockList])[];

function subnets(family: 'ipv4' | 'ipv6', list: readonly string[]): BlockList {
  const blocks = new BlockList();
  for (const cidr of list) {
    const [network, prefix] = cidr.split('/');
    blocks.addSubnet(network, Number(prefix), family);
  }
  return blocks;
}

// First match wins, so the narrow entries (metadata) precede the ranges that contain them.
const V4: Table = [
  // AWS/GCP/Azure/OpenStack, AWS ECS task credentials, Alibaba Cloud, Oracle Cloud.
  ['metadata', subnets('ipv4', ['169.254.169.254/32', '169.254.170.2/32', '100.100.100.200/32', '192.0.0.192/32'])],
  // "This network": Linux connects 0.0.0.0 to the local host.
  ['unspecified', subnets('ipv4', ['0.0.0.0/8'])],
  ['loopback', subnets('ipv4', ['127.0.0.0/8'])],
  ['private', subnets('ipv4', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'])],
  ['cgnat', subnets('ipv4', ['100.64.0.0/10'])],
  ['link_local', subnets('ipv4', ['169.254.0.0/16'])],
  ['documentation', subnets('ipv4', ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24'])],
  ['multicast', subnets('ipv4', ['224.0.0.0/4'])],
  // IETF protocol assignments, 6to4 relay anycast, benchmarking, class E (with 255.255.255.255 broadcast).
  ['reserved', subnets('ipv4', ['192.0.0.0/24', '192.88.99.0/24', '198.18.0.0/15', '240.0.0.0/4'])],
];

const V6: Table = [
  ['unspecified', subnets('ipv6', ['::/128'])],
  ['loopback', subnets('ipv6', ['::1/128'])],
  // AWS Nitro instance metadata over IPv6.
  ['metadata', subnets('ipv6', ['fd00:ec2::254/128'])],
  // Deprecated IPv4-compatible (::a.b.c.d), discard-only, IETF assignments (Teredo, benchmarking, ORCHID), SRv6 SIDs.
  ['reserved', subnets('ipv6', ['::/96', '100::/64', '2001::/23', '5f00::/16'])],
  ['documentation', subnets('ipv6', ['2001:db8::/32', '3fff::/20'])],
  // Local-use NAT64 (RFC 8215) and deprecated site-local addresses only make sense inside a network.
  ['private', subnets('ipv6', ['64:ff9b:1::/48', 'fec0::/10'])],
  ['unique_local', subnets('ipv6', ['fc00::/7'])],
  ['link_local', subnets('ipv6', ['fe80::/10'])],
  ['multicast', subnets('ipv6', ['ff00::/8'])],
  ['public', subnets('ipv6', ['2000::/3'])],
];

/** IPv6 forms that carry an IPv4 address, and where it sits: the IPv4 rules then apply to it. */
const EMBEDDED_V4: readonly (readonly [BlockList, number])[] = [
  [subnets('ipv6', ['::ffff:0:0/96']), 12], // IPv4-mapped
  [subnets('ipv6', ['64:ff9b::/96']), 12], // NAT64 well-known prefix
  [subnets('ipv6', ['2002::/16']), 2], // 6to4
];

function lookupTable(table: Table, address: string, family: 'ipv4' | 'ipv6'): AddressCategory | undefined {
  return table.find(([, blocks]) => blocks.check(address, family))?.[0];
}

/**
 * The 16 bytes of an address `isIP` already accepted as IPv6. `net` validates and matches
 * subnets but has no inet_pton, and the embedded IPv4 of NAT64/6to4 needs the bytes.
 */
function ipv6Bytes(address: string): Buffer {
  let text = address;
  const lastColon = text.lastIndexOf(':');
  const dotted = text.slice(lastColon + 1);
  if (isIPv4(dotted)) {
    const [a, b, c, d] = dotted.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  const bytes = Buffer.alloc(16);
  groups.forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), i * 2));
  return bytes;
}

function classifyV6(address: string): AddressCategory {
  for (const [prefix, offset] of EMBEDDED_V4) {
    if (prefix.check(address, 'ipv6')) {
      return (
        lookupTable(
          V4,
          ipv6Bytes(address)
            .subarray(offset, offset + 4)
            .join('.'),
          'ipv4',
        ) ?? 'public'
      );
    }
  }
  // Outside 2000::/3 nothing is allocated for global unicast.
  return lookupTable(V6, address, 'ipv6') ?? 'reserved';
}

/**
 * Addresses already classified. Every attempt checks its target (the URL's IP literal, the address
 * connected to), and BlockList.check builds a SocketAddress per range tried: about 3% of the webhooks
 * process's CPU per delivery before this memo. An address's category never changes; the memo is
 * cleared when full, so it stays bounded whatever the addresses.
 */
const classified = new Map<string, AddressCategory>();
const CLASSIFIED_MAX = 1_024;

/** What kind of address `ip` is (IPv4, IPv6, `[bracketed]`, with or without a `%zone`). */
export function classifyAddress(ip: string): AddressCategory {
  let category = classified.get(ip);
  if (category === undefined) {
    category = classifyUncached(ip);
    if (classified.size >= CLASSIFIED_MAX) classified.clear();
    classified.set(ip, category);
  }
  return category;
}

function classifyUncached(ip: string): AddressCategory {
  const address = ip.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  switch (isIP(address)) {
    case 4:
      return lookupTable(V4, address, 'ipv4') ?? 'public';
    case 6:
      return classifyV6(address);
    default:
      throw new TypeError(`not an IP address: ${ip}`);
  }
}

/**
 * What `allowPrivateTargets` (sandbox, local development) opens: the machine itself and the
 * networks a developer's receiver lives on (Docker, Kubernetes, VPN). Metadata, link-local and
 * the never-routable kinds stay closed whatever the setting.
 */
const OPENED_BY_ALLOW_PRIVATE: ReadonlySet<AddressCategory> = new Set(['loopback', 'private', 'unique_local', 'cgnat']);

export function isAllowedTarget(category: AddressCategory, allowPrivateTargets: boolean): boolean {
  return category === 'public' || (allowPrivateTargets && OPENED_BY_ALLOW_PRIVATE.has(category));
}

const LABELS: Record<AddressCategory, string> = {
  public: 'public',
  loopback: 'loopback',
  private: 'private network',
  link_local: 'link-local',
  cgnat: 'shared (carrier-grade NAT)',
  metadata: 'cloud metadata',
  unique_local: 'unique local (private IPv6)',
  multicast: 'multicast',
  unspecified: 'unspecified',
  reserved: 'reserved',
  documentation: 'documentation-only',
};

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export interface WebhookUrlPolicy {
  mode: Mode;
  /** Sandbox keys only: ignored for live keys. */
  allowPrivateTargets: boolean;
  /** Every address of `host` (A and AAAA); rejects or resolves to [] when there is none. */
  resolve: (host: string) => Promise<string[]>;
}

function invalid(message: string): PlatformError {
  return new PlatformError('INVALID_WEBHOOK_URL', message, { param: 'webhook_url' });
}

/**
 * Validates a webhook URL when it is saved and returns it normalised (WHATWG serialisation, no
 * fragment). Every address the host resolves to must be allowed, not just one: the connection
 * may use any of them. An unresolvable name passes (the attempt-time check still applies).
 */
export async function checkWebhookUrl(raw: string, policy: WebhookUrlPolicy): Promise<string> {
  // Before parsing, so a huge value costs nothing.
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    throw invalid(`webhook_url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('webhook_url must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw invalid('webhook_url must be an absolute http(s) URL');
  if (url.username || url.password) throw invalid('webhook_url must not contain a user name or password');
  if (policy.mode === 'live' && url.protocol !== 'https:') throw invalid('webhook_url must use https for live keys');

  const allowPrivate = policy.mode === 'sandbox' && policy.allowPrivateTargets;
  const refuse = (category: AddressCategory, verb: string) =>
    invalid(
      `webhook_url ${verb} a ${LABELS[category]} address, which cannot receive webhooks` +
        (OPENED_BY_ALLOW_PRIVATE.has(category) && policy.mode === 'live' ? ' with a live key' : ''),
    );
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) {
    const category = classifyAddress(host);
    if (!isAllowedTarget(category, allowPrivate)) throw refuse(category, 'points to');
  } else if (/(^|\.)localhost\.?$/i.test(host)) {
    // RFC 6761: resolvers answer loopback for these without asking DNS.
    if (!isAllowedTarget('loopback', allowPrivate)) throw refuse('loopback', 'points to');
  } else {
    let addresses: string[];
    try {
      addresses = await policy.resolve(host);
    } catch {
      addresses = [];
    }
    // A name that does not resolve yet is accepted (partners often save the URL before their DNS
    // exists): nothing can be reached through it now, and every attempt checks the address it
    // actually connects to. Addresses it does resolve to must all be allowed.
    for (const address of addresses) {
      const category = classifyAddress(address);
      // The addresses themselves are not echoed: they may describe our internal network.
      if (!isAllowedTarget(category, allowPrivate)) throw refuse(category, 'host resolves to');
    }
  }
  url.hash = '';
  return url.href;
}

/** A connection refused because its address is not an allowed webhook target. */
export class BlockedTargetError extends Error {
  readonly code = 'blocked_target';

  constructor(
    readonly hostname: string,
    readonly address: string,
    readonly category: AddressCategory,
  ) {
    super(`${hostname} resolves to ${address}, a ${LABELS[category]} address: not connecting`);
    this.name = 'BlockedTargetError';
  }
}

export type LookupAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A `lookup` for `http.request`/`net.connect` that resolves with `options.lookup` (the webhooks'
 * async resolver, dns-resolver.adapter.ts) and then refuses the connection if any address is not
 * allowed. Sockets only ever connect to what it returns, so the check applies to the address
 * actually used. IP-literal URLs skip `lookup` in Node, so callers must check those with
 * `classifyAddress` first (the HTTP sender does).
 */
export function guardedLookup(options: { allowPrivateTargets: boolean; lookup: LookupAll }): LookupFunction {
  const resolveAll = options.lookup;
  return (hostname, lookupOptions, callback) => {
    resolveAll(hostname, { ...lookupOptions, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      if (addresses.length === 0) {
        return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
      }
      for (const { address } of addresses) {
        const category = classifyAddress(address);
        if (!isAllowedTarget(category, options.allowPrivateTargets)) {
          return callback(new BlockedTargetError(hostname, address, category), []);
        }
      }
      if (lookupOptions?.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
