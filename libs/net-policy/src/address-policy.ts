import { BlockList, isIP } from 'node:net';

/**
 * Which addresses an outbound fetch (media URLs, webhooks) may reach. Refused: everything that is not the public internet,
 * because the fetch runs inside the operator's network (SSRF): private ranges, loopback,
 * link-local (with the cloud metadata endpoint 169.254.169.254), CGNAT, multicast, reserved and
 * documentation ranges, and their IPv6 counterparts. IPv6 forms that embed an IPv4 address
 * (mapped, NAT64, 6to4) are judged by that IPv4 address.
 */

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translated by a network's own NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID…)
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (AWS metadata fd00:ec2::254 included)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

export type AddressVerdict = 'public' | 'loopback' | 'forbidden';

/** Classifies a literal IP address (v4 or v6); anything unparsable is forbidden. */
export function classifyAddress(address: string): AddressVerdict {
  const family = isIP(address);
  if (family === 0) return 'forbidden';
  if (family === 6) {
    const embedded = embeddedIpv4(address);
    if (embedded !== null) return classifyAddress(embedded);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (LOOPBACK.check(address, type)) return 'loopback';
  return NOT_PUBLIC.check(address, type) ? 'forbidden' : 'public';
}

/** Whether a fetch may connect to `address` under the operator's loopback switch. */
export function isAllowedAddress(address: string, allowLoopback: boolean): boolean {
  const verdict = classifyAddress(address);
  return verdict === 'public' || (verdict === 'loopback' && allowLoopback);
}

/**
 * The IPv4 address inside ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (translated, SIIT),
 * 64:ff9b::/96 (NAT64) or 2002::/16 (6to4).
 */
function embeddedIpv4(address: string): string | null {
  const words = expandIpv6(address);
  if (words === null) return null;
  const isZero = (from: number, to: number) => words.slice(from, to).every((w) => w === 0);
  if (isZero(0, 5) && words[5] === 0xffff) return ipv4From(words[6]!, words[7]!);
  if (isZero(0, 4) && words[4] === 0xffff && words[5] === 0) return ipv4From(words[6]!, words[7]!);
  if (words[0] === 0x64 && words[1] === 0xff9b && isZero(2, 6)) return ipv4From(words[6]!, words[7]!);
  if (words[0] === 0x2002) return ipv4From(words[1]!, words[2]!);
  // IPv4-compatible ::a.b.c.d (deprecated, still routable on some stacks); :: and ::1 are not.
  if (isZero(0, 6) && (words[6] !== 0 || words[7]! > 1)) return ipv4From(words[6]!, words[7]!);
  return null;
}

function ipv4From(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** Eight 16-bit words of an IPv6 literal (with an optional dotted IPv4 tail), or null. */
function expandIpv6(address: string): number[] | null {
  let text = address.toLowerCase().split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const parts = dotted[1]!.split('.').map(Number);
    text = `${text.slice(0, -dotted[1]!.length)}${((parts[0]! << 8) | parts[1]!).toString(16)}:${((parts[2]! << 8) | parts[3]!).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? left.length !== 8 : missing < 0) return null;
  const words = [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right].map((w) => parseInt(w, 16));
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : null;
}
