import { createHash } from 'node:crypto';

/**
 * IPv4 blocks for the Agents' own networks (agent-network.ts): each Agent's bridge gets one /28
 * of OCC_DOCKER_SUBNETS, chosen by OCC rather than the engine, whose default pools hand out a
 * /16 each (about 30 networks in all) from the private ranges.
 */
export interface Cidr {
  /** The block's first address as an unsigned 32-bit number. */
  base: number;
  prefix: number;
}

/** An Agent's network: 16 addresses (the bridge's gateway and one running container need two). */
const AGENT_SUBNET_PREFIX = 28;

const CIDR = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\/([0-9]|[12][0-9]|3[0-2])$/;
const size = (prefix: number) => 2 ** (32 - prefix);

/**
 * `a.b.c.d/n`; null when malformed. `strict`: the address must be the block's first (an operator's
 * setting); otherwise the host bits are dropped (a subnet another tool gave the engine).
 */
export function parseCidr(text: string, strict = true): Cidr | null {
  const match = CIDR.exec(text.trim());
  if (!match) return null;
  const octets = match.slice(1, 5).map(Number);
  if (octets.some((octet) => octet > 255)) return null;
  const address = octets.reduce((sum, octet) => sum * 256 + octet, 0);
  const prefix = Number(match[5]);
  const base = address - (address % size(prefix));
  if (strict && base !== address) return null;
  return { base, prefix };
}

export function formatCidr({ base, prefix }: Cidr): string {
  return `${[24, 16, 8, 0].map((shift) => Math.floor(base / 2 ** shift) % 256).join('.')}/${prefix}`;
}

export function overlaps(a: Cidr, b: Cidr): boolean {
  return a.base < b.base + size(b.prefix) && b.base < a.base + size(a.prefix);
}

/**
 * A /28 of `pool` that overlaps none of `taken` (every subnet the engine's networks use), searched
 * from a slot `key` hashes to: an Agent tends to get the same subnet again, and two processes
 * creating different Agents' networks at once rarely race for one. Null when the pool is full.
 */
export function freeSubnet(pool: Cidr, taken: readonly Cidr[], key: string): Cidr | null {
  const slots = size(pool.prefix) / size(AGENT_SUBNET_PREFIX);
  const start = createHash('sha256').update(key).digest().readUInt32BE(0) % slots;
  for (let i = 0; i < slots; i += 1) {
    const candidate = { base: pool.base + ((start + i) % slots) * size(AGENT_SUBNET_PREFIX), prefix: AGENT_SUBNET_PREFIX };
    if (!taken.some((block) => overlaps(block, candidate))) return candidate;
  }
  return null;
}
