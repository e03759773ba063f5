import { lookup } from 'node:dns/promises';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { BlockList, connect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

/**
 * The only way out of a network-isolated sandbox to anything but shared loopback ports: an HTTP
 * proxy (CONNECT, and absolute-URI requests) on a Unix socket the runtime forwards its proxy port
 * to. It connects to public addresses only: every address a name resolves to is checked, so a name
 * pointing at loopback, a private network, link-local (cloud metadata) or CGNAT is refused, and
 * the connection goes to an address that was checked (no second lookup to rebind).
 */
const NOT_PUBLIC = new BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC.addSubnet(address, prefix, 'ipv4');
}
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  NOT_PUBLIC.addSubnet(address, prefix, 'ipv6');
}
/** IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is refused whole: kept apart because BlockList applies such a rule to plain IPv4 too. */
const MAPPED = new BlockList();
MAPPED.addSubnet('::ffff:0:0', 96, 'ipv6');

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6 && MAPPED.check(address, 'ipv6')) return false;
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

/**
 * The operator's proxy (OCC_RUNTIME_PROXY or the inherited HTTPS_PROXY): when set, the gate
 * checks a destination as always, then reaches it through this proxy instead of directly,
 * except hosts its NO_PROXY names.
 */
export interface UpstreamProxy {
  url: URL;
  noProxy: readonly string[];
}

export function upstreamProxyOf(network: Readonly<Record<string, string>>): UpstreamProxy | null {
  const value = network.HTTPS_PROXY ?? network.https_proxy ?? network.HTTP_PROXY ?? network.http_proxy;
  if (!value) return null;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    const noProxy = (network.NO_PROXY ?? network.no_proxy ?? '')
      .split(',')
      .map((entry) =>
        entry
          .trim()
          .toLowerCase()
          .replace(/^\*?\./, ''),
      )
      .filter((entry) => entry !== '');
    return { url, noProxy };
  } catch {
    return null;
  }
}

function viaUpstream(upstream: UpstreamProxy | null, host: string): UpstreamProxy | null {
  if (upstream === null) return null;
  const name = host.toLowerCase();
  return upstream.noProxy.some((entry) => name === entry || name.endsWith(`.${entry}`)) ? null : upstream;
}

function proxyAuthorization(url: URL): Record<string, string> {
  if (url.username === '') return {};
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(credentials).toString('base64')}` };
}

function connectTo(host: string, port: number, secure: boolean, onConnect: () => void): Socket {
  return secure ? tlsConnect({ host, port, servername: isIP(host) === 0 ? host : undefined }, onConnect) : connect(port, host, onConnect);
}

/** Serves the egress proxy on `socketPath`; `record` gets one line per decision (host and port, never a path or header). */
export interface EgressGateOptions {
  upstream?: UpstreamProxy | null;
  /** Name resolution (default: the system's); tests pass their own. */
  resolve?: (host: string) => Promise<string[]>;
}

export async function startEgressGate(socketPath: string, record: (line: string) => void, options: EgressGateOptions = {}): Promise<Server> {
  const gate: Gate = { record, upstream: options.upstream ?? null, resolve: options.resolve ?? resolveAll };
  const server = createServer((req, res) => void forward(req, res, gate));
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => void tunnel(req, client, head, gate));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return server;
}

interface Gate {
  record: (line: string) => void;
  upstream: UpstreamProxy | null;
  resolve: (host: string) => Promise<string[]>;
}

async function tunnel(req: IncomingMessage, client: Socket, head: Buffer, { record, upstream: upstreamProxy, resolve }: Gate): Promise<void> {
  client.on('error', () => client.destroy());
  const to = target(req.url ?? '', 443);
  if (to === null) return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
  const decision = await decideEgress(to.host, resolve);
  record(`egress ${decision.allowed ? 'allowed' : 'refused'}: CONNECT ${to.host}:${to.port}${decision.allowed ? '' : ` (${decision.reason})`}`);
  if (!decision.allowed) return void client.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  const proxy = viaUpstream(upstreamProxy, to.host);
  const established = () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  };
  const upstream =
    proxy === null
      ? connect(to.port, decision.address, established)
      : connectTo(proxy.url.hostname, Number(proxy.url.port || (proxy.url.protocol === 'https:' ? 443 : 80)), proxy.url.protocol === 'https:', () => {
          // The operator's proxy resolves the name itself; the name was checked above.
          const auth = Object.entries(proxyAuthorization(proxy.url))
            .map(([name, value]) => `${name}: ${value}\r\n`)
            .join('');
          upstream.write(`CONNECT ${to.host}:${to.port} HTTP/1.1\r\nhost: ${to.host}:${to.port}\r\n${auth}\r\n`);
          upstream.once('data', (answer: Buffer) => {
            if (/^HTTP\/1\.[01] 200/.test(answer.toString('latin1'))) established();
            else client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
          });
        });
  upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
  client.on('close', () => upstream.destroy());
}

async function forward(req: IncomingMessage, res: ServerResponse, { record, upstream: upstreamProxy, resolve }: Gate): Promise<void> {
  const to = target(req.url ?? '', 80);
  if (to === null || !(req.url ?? '').startsWith('http://')) return void res.writeHead(400).end();
  const decision = await decideEgress(to.host, resolve);
  record(`egress ${decision.allowed ? 'allowed' : 'refused'}: ${req.method ?? 'GET'} http://${to.host}:${to.port}${decision.allowed ? '' : ` (${decision.reason})`}`);
  if (!decision.allowed) return void res.writeHead(403).end();
  const url = new URL(req.url!);
  const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !/^proxy-/i.test(name)));
  const proxy = viaUpstream(upstreamProxy, to.host);
  const destination =
    proxy === null
      ? { host: decision.address, port: to.port, path: `${url.pathname}${url.search}`, headers }
      : { host: proxy.url.hostname, port: Number(proxy.url.port || 80), path: url.href, headers: { ...headers, ...proxyAuthorization(proxy.url) } };
  const upstream = request({ ...destination, method: req.method }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
  req.pipe(upstream);
}
