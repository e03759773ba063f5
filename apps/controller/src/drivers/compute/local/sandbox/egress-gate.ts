import { lookup } from 'node:dns/promises';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { BlockList, connect, isIP, type Socket } from 'node:net';

/**
 * The only way out of a network-isolated sandbox to anything but shared loopback ports: an HTTP
 * proxy (CONNECT, and absolute-URI requests) on a Unix socket the runtime forwards its proxy port
 * to. It connects to public addresses only: every address a name resolves to is checked, so a name
 * pointing at loopback, a private network, link-local (cloud metadata) or CGNAT is refused, and
 * the connection goes to an address that was checked (no second lookup to rebind).
 */
const NOT_PUBLIC = new BlockList();
for (const [address, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) {
  NOT_PUBLIC.addSubnet(address, prefix, 'ipv4');
}
for (const [address, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['::ffff:0:0', 96], ['64:ff9b::', 96]] as const) {
  NOT_PUBLIC.addSubnet(address, prefix, 'ipv6');
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export type EgressDecision = { allowed: true; address: string } | { allowed: false; reason: string };

/** Where `host` may be reached, or why not. */
export async function decideEgress(host: string, resolve: (host: string) => Promise<string[]> = resolveAll): Promise<EgressDecision> {
  const bare = host.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(bare) !== 0 ? [bare] : await resolve(bare);
  } catch {
    return { allowed: false, reason: 'name not resolved' };
  }
  if (addresses.length === 0) return { allowed: false, reason: 'name not resolved' };
  const blocked = addresses.find((address) => !isPublicAddress(address));
  if (blocked !== undefined) return { allowed: false, reason: `not a public address (${blocked})` };
  return { allowed: true, address: addresses[0]! };
}

async function resolveAll(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
}

/** host:port of a CONNECT target or an absolute URL; null when malformed. */
function target(value: string, defaultPort: number): { host: string; port: number } | null {
  try {
    const url = new URL(value.includes('://') ? value : `tcp://${value}`);
    const port = url.port === '' ? defaultPort : Number(url.port);
    if (url.hostname === '' || !Number.isInteger(port) || port < 1 || port > 65535) return null;
    return { host: url.hostname, port };
  } catch {
    return null;
  }
}

/** Serves the egress proxy on `socketPath`; `record` gets one line per decision (host and port, never a path or header). */
export async function startEgressGate(socketPath: string, record: (line: string) => void): Promise<Server> {
  const server = createServer((req, res) => void forward(req, res, record));
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => void tunnel(req, client, head, record));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return server;
}

async function tunnel(req: IncomingMessage, client: Socket, head: Buffer, record: (line: string) => void): Promise<void> {
  client.on('error', () => client.destroy());
  const to = target(req.url ?? '', 443);
  if (to === null) return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
  const decision = await decideEgress(to.host);
  record(`egress ${decision.allowed ? 'allowed' : 'refused'}: CONNECT ${to.host}:${to.port}${decision.allowed ? '' : ` (${decision.reason})`}`);
  if (!decision.allowed) return void client.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  const upstream = connect(to.port, decision.address, () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
  client.on('close', () => upstream.destroy());
}

async function forward(req: IncomingMessage, res: ServerResponse, record: (line: string) => void): Promise<void> {
  const to = target(req.url ?? '', 80);
  if (to === null || !(req.url ?? '').startsWith('http://')) return void res.writeHead(400).end();
  const decision = await decideEgress(to.host);
  record(`egress ${decision.allowed ? 'allowed' : 'refused'}: ${req.method ?? 'GET'} http://${to.host}:${to.port}${decision.allowed ? '' : ` (${decision.reason})`}`);
  if (!decision.allowed) return void res.writeHead(403).end();
  const url = new URL(req.url!);
  const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !/^proxy-/i.test(name)));
  const upstream = request({ host: decision.address, port: to.port, method: req.method, path: `${url.pathname}${url.search}`, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
  req.pipe(upstream);
}
