import { isIPv4 } from 'node:net';

/** IP → ISO-2 country. The platform ships no geolocation database, so by default nothing is located. */
export interface GeoLocator {
  locate(ip: string): string | undefined;
}

export const NO_GEOLOCATION: GeoLocator = { locate: () => undefined };

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

/**
 * A static IPv4 CIDR table (`GEOIP_FILE`: `{"ranges": {"41.58.0.0/16": "NG", ...}}`), for operators
 * who export one from their geolocation provider. Longest prefix wins. IPv4-mapped IPv6 is accepted.
 */
export class CidrGeoLocator implements GeoLocator {
  private readonly ranges: { base: number; bits: number; country: string }[];

  constructor(ranges: Record<string, string>) {
    this.ranges = Object.entries(ranges)
      .map(([cidr, country]) => {
        const [ip, bitsText = '32'] = cidr.split('/');
        const bits = Number(bitsText);
        if (!isIPv4(ip) || !Number.isInteger(bits) || bits < 0 || bits > 32 || !/^[A-Z]{2}$/.test(country)) {
          throw new Error(`invalid geolocation range ${cidr} → ${country}`);
        }
        return { base: ipv4ToInt(ip), bits, country };
      })
      .sort((a, b) => b.bits - a.bits);
  }

  /** From the `GEOIP_FILE` body. */
  static fromJson(body: unknown): CidrGeoLocator {
    return new CidrGeoLocator((body as { ranges?: Record<string, string> }).ranges ?? {});
  }

  locate(raw: string): string | undefined {
    const ip = raw.startsWith('::ffff:') ? raw.slice(7) : raw;
    if (!isIPv4(ip)) return undefined;
    const value = ipv4ToInt(ip);
    for (const r of this.ranges) {
      const size = 2 ** (32 - r.bits);
      if (Math.floor(value / size) === Math.floor(r.base / size)) return r.country;
    }
    return undefined;
  }
}
