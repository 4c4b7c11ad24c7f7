/**
 * Which IP addresses are on the public internet. Everything else — loopback, private, link-local, shared
 * (CGNAT), multicast, documentation, benchmarking, reserved, unspecified — is named by its range, so a
 * refusal can say why. IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4) are judged
 * by that IPv4 address, so `::ffff:127.0.0.1` is loopback like `127.0.0.1`.
 */
import { isIPv4, isIPv6 } from 'node:net';

type Range = readonly [prefix: number[], bits: number, kind: string];

// IANA's IPv4 special-purpose registry, plus multicast and the old class E.
const V4: Range[] = [
  [[0, 0, 0, 0], 8, 'unspecified ("this network")'],
  [[10, 0, 0, 0], 8, 'private'],
  [[100, 64, 0, 0], 10, 'shared (carrier-grade NAT)'],
  [[127, 0, 0, 0], 8, 'loopback'],
  [[169, 254, 0, 0], 16, 'link-local'],
  [[172, 16, 0, 0], 12, 'private'],
  [[192, 0, 0, 0], 24, 'reserved (IETF protocol assignments)'],
  [[192, 0, 2, 0], 24, 'documentation'],
  [[192, 88, 99, 0], 24, 'reserved (6to4 relay)'],
  [[192, 168, 0, 0], 16, 'private'],
  [[198, 18, 0, 0], 15, 'benchmarking'],
  [[198, 51, 100, 0], 24, 'documentation'],
  [[203, 0, 113, 0], 24, 'documentation'],
  [[224, 0, 0, 0], 4, 'multicast'],
  [[240, 0, 0, 0], 4, 'reserved'],
];

// Only global unicast (2000::/3) can be public; inside it, these are not.
const V6: Range[] = [
  [[0x20, 0x01, 0x0d, 0xb8], 32, 'documentation'],
  [[0x3f, 0xff, 0x00], 20, 'documentation'],
  [[0x20, 0x01, 0x00], 23, 'reserved (IETF protocol assignments)'],
];

function inRange(bytes: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[i / 8] ?? 0) & mask) !== ((prefix[i / 8] ?? 0) & mask)) return false;
  }
  return true;
}

function v4Kind(bytes: number[]): string | null {
  for (const [prefix, bits, kind] of V4) if (inRange(bytes, prefix, bits)) return kind;
  return null;
}

/** The 16 bytes of an IPv6 address (zone id dropped, embedded dotted IPv4 read). */
export function ipv6Bytes(ip: string): number[] {
  let text = ip.replace(/%.*$/, '');
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail.push(...dotted[1]!.split('.').map(Number));
    text = text.slice(0, -dotted[1]!.length) + '0:0';
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const groups = (s: string) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const all = rest === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = all.flatMap((g) => [g >> 8, g & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** Why `ip` is not a public internet address ("loopback", "private"…), or null when it is one. */
export function nonPublicKind(ip: string): string | null {
  if (isIPv4(ip)) return v4Kind(ip.split('.').map(Number));
  if (!isIPv6(ip)) return 'not an IP address';
  const b = ipv6Bytes(ip);
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zeros(0, 16)) return 'unspecified';
  if (zeros(0, 15) && b[15] === 1) return 'loopback';
  const embedded = (at: number) => v4Kind(b.slice(at, at + 4));
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), ::ffff:0:a.b.c.d (translated), 64:ff9b::a.b.c.d (NAT64).
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return embedded(12);
  if (zeros(0, 12)) return embedded(12);
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12)) return embedded(12);
  if (inRange(b, [0x00, 0x64, 0xff, 0x9b], 32) && zeros(4, 12)) return embedded(12);
  if (inRange(b, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48)) return 'private (local-use NAT64)';
  // 2002:a.b.c.d::/48 (6to4) reaches the IPv4 address it embeds.
  if (b[0] === 0x20 && b[1] === 0x02) return embedded(2);
  if (inRange(b, [0xfc], 7)) return 'private (unique local)';
  if (inRange(b, [0xfe, 0x80], 10)) return 'link-local';
  if (inRange(b, [0xfe, 0xc0], 10)) return 'site-local';
  if (b[0] === 0xff) return 'multicast';
  if (!inRange(b, [0x20], 3)) return 'reserved';
  for (const [prefix, bits, kind] of V6) if (inRange(b, prefix, bits)) return kind;
  return null;
}
