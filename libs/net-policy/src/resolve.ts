import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { isAllowedAddress } from './address-policy.js';

/** One resolved address of a host name. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses; injectable so tests never ask real DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** Why a URL's host may not be connected to. */
export type AddressRefusal = 'unresolvable' | 'forbidden';

/**
 * Resolves the URL's host (a literal address as itself) and checks every address against the
 * policy BEFORE any connection; one bad address refuses the whole name (DNS answers rotate).
 * The first address is the one to pin the connection to.
 */
export async function checkedAddress(url: URL, allowLoopback: boolean, resolver: Resolver = systemResolver): Promise<ResolvedAddress | AddressRefusal> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const literal = isIP(host);
  let addresses: ResolvedAddress[];
  if (literal !== 0) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await resolver(host);
    } catch {
      return 'unresolvable';
    }
  }
  const first = addresses[0];
  if (first === undefined) return 'unresolvable';
  return addresses.every((a) => isAllowedAddress(a.address, allowLoopback)) ? first : 'forbidden';
}

/** A `lookup` that answers only the address already checked: no second resolution happens (DNS rebinding). */
export function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  }) as unknown as LookupFunction;
}
