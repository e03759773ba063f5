// Which TCP ports a process of this host listens on at one exact IPv4 address (Linux
// /proc/net/tcp). The engine picks published ports from the same ephemeral range the kernel gives
// to `listen(0)`, so another test file's relay on the host's address can hold the very port
// number a container is published on (at 127.0.0.1): connecting there reaches that relay, not
// the container.
import { readFileSync } from 'node:fs';
import { procIPv4 } from '../../apps/runtime/src/port-owner.ts';

const LISTEN = '0A';

/** Ports listened on at exactly `address` (not the wildcard 0.0.0.0, which the engine never uses for a runtime port). */
export function portsListeningOn(address: string): Set<number> {
  const want = procIPv4(address);
  const ports = new Set<number>();
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const [, local, , state] = line.trim().split(/\s+/);
    if (state !== LISTEN || !local) continue;
    const [host, port] = local.split(':');
    if (host === want) ports.add(Number.parseInt(port!, 16));
  }
  return ports;
}
