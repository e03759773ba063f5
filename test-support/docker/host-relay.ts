// A loopback service of the test host (the run's fixture npm registry) made reachable from the
// Agents' own networks: an Agent's container has no way to the host's loopback any more, so the
// service is relayed on the host's own non-loopback address — the way an operator's registry or
// proxy is reached, through the Agent network's route out — for connections from the Agents'
// subnets only (nobody else on the machine's network gets the relay).
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { overlaps, parseCidr, type Cidr } from '../../apps/controller/src/drivers/compute/docker/subnets.ts';

/** The host's first non-loopback IPv4 address that is not a container bridge (eth0 here). */
export function hostAddress(): string {
  for (const [name, addresses] of Object.entries(networkInterfaces())) {
    if (/^(occ|br-|docker|veth)/.test(name)) continue;
    const v4 = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (v4) return v4.address;
  }
  throw new Error('This host has no non-loopback IPv4 address an Agent could reach.');
}

export interface HostRelay {
  /** `target` with its host and port replaced by the relay's. */
  url: string;
  close(): Promise<void>;
}

/** Relays `target` (an http URL on 127.0.0.1) on hostAddress(), to peers inside `agents` only. */
export async function relayToAgents(target: string, agents: Cidr): Promise<HostRelay> {
  const upstream = new URL(target);
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    const peer = parseCidr(`${client.remoteAddress?.replace(/^::ffff:/, '')}/32`);
    if (!peer || !overlaps(peer, agents)) return void client.destroy();
    const to = connect(Number(upstream.port), upstream.hostname);
    const close = () => {
      client.destroy();
      to.destroy();
    };
    client.on('error', close).on('close', close);
    to.on('error', close).on('close', close);
    open.add(client);
    client.once('close', () => open.delete(client));
    client.pipe(to).pipe(client);
  });
  const host = hostAddress();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
  const url = new URL(target);
  url.hostname = host;
  url.port = String((server.address() as AddressInfo).port);
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of open) socket.destroy();
    });
  return { url: url.toString(), close };
}
