import { createSocket, type Socket } from 'node:dgram';
import { isIPv4 } from 'node:net';

/** What the fake server knows of a name: its addresses and their TTL, or that it never answers. */
export interface FakeZone {
  addresses?: string[];
  ttl?: number;
  /** A slow authoritative server: the query gets no answer at all. */
  hang?: boolean;
}

const A = 1;
const AAAA = 28;

/**
 * A DNS server on 127.0.0.1 (UDP) answering A and AAAA queries from `zones`: NXDOMAIN for names it
 * does not know, nothing for names that hang. `queries` lists every question asked (`name/type`).
 */
export async function fakeDns(zones: Record<string, FakeZone>): Promise<{
  server: string;
  queries: string[];
  close: () => Promise<void>;
}> {
  const socket: Socket = createSocket('udp4');
  const queries: string[] = [];
  socket.on('message', (msg, peer) => {
    const { name, type, end } = question(msg);
    queries.push(`${name}/${type === A ? 'A' : type === AAAA ? 'AAAA' : type}`);
    const zone = zones[name];
    if (zone?.hang) return;
    const records = (zone?.addresses ?? []).filter((a) => (type === A ? isIPv4(a) : type === AAAA && !isIPv4(a)));
    const header = Buffer.alloc(12);
    header.writeUInt16BE(msg.readUInt16BE(0), 0);
    header.writeUInt16BE(zone ? 0x8180 : 0x8183, 2); // response, recursion; NOERROR or NXDOMAIN
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(records.length, 6);
    const answers = records.map((address) => {
      const rdata = type === A ? Buffer.from(address.split('.').map(Number)) : ipv6(address);
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      rr.writeUInt16BE(type, 2);
      rr.writeUInt16BE(1, 4);
      rr.writeUInt32BE(zone?.ttl ?? 60, 6);
      rr.writeUInt16BE(rdata.length, 10);
      return Buffer.concat([rr, rdata]);
    });
    socket.send(Buffer.concat([header, msg.subarray(12, end), ...answers]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    queries,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

function question(msg: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (msg[at]! > 0) {
    labels.push(msg.subarray(at + 1, at + 1 + msg[at]!).toString('ascii'));
    at += msg[at]! + 1;
  }
  return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(at + 1), end: at + 5 };
}

function ipv6(address: string): Buffer {
  const [head, tail] = address.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}
