import { isIPv4, isIPv6 } from 'node:net';

/** A CIDR the API server takes as written in a NetworkPolicy ipBlock. */
export interface Cidr {
  family: 4 | 6;
  prefix: number;
}

/**
 * `address/prefix`, strictly: a valid IPv4 (no leading zeros) or IPv6 address (no zone, no
 * dotted IPv4 tail), a prefix within the family's width, and no host bits set, since
 * `10.1.2.3/8` reads as one address but means all of 10/8. Anything else: null.
 */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf('/');
  const address = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  if (slash < 0 || !/^(?:0|[1-9]\d{0,2})$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  let bits: bigint;
  let width: number;
  if (isIPv4(address)) {
    bits = address.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(octet), 0n);
    width = 32;
  } else if (isIPv6(address) && !/[%.]/.test(address)) {
    bits = ipv6Groups(address).reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n);
    width = 128;
  } else {
    return null;
  }
  if (prefix > width) return null;
  if ((bits & ((1n << BigInt(width - prefix)) - 1n)) !== 0n) return null;
  return { family: width === 32 ? 4 : 6, prefix };
}

/** The eight groups of an address `isIPv6` accepted, `::` expanded. */
function ipv6Groups(address: string): string[] {
  const gap = address.indexOf('::');
  if (gap < 0) return address.split(':');
  const left = address.slice(0, gap).split(':').filter(Boolean);
  const right = address
    .slice(gap + 2)
    .split(':')
    .filter(Boolean);
  return [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
}
