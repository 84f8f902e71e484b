export { classifyAddress, isAllowedAddress } from './address-policy.js';
export type { AddressVerdict } from './address-policy.js';
export { checkedAddress, pinnedLookup, systemResolver } from './resolve.js';
export type { AddressRefusal, ResolvedAddress, Resolver } from './resolve.js';
