import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideEgress, isPublicAddress, startEgressGate, upstreamProxyOf } from '../../src/drivers/compute/local/sandbox/egress-gate.ts';

// The egress gate is a confined runtime's only way to anything but shared loopback ports
// (docs/security.md). An attacker inside asks it for OCC's own ports, the cloud metadata address,
// or a name that resolves to a private address; each must be refused before any connection.
const dir = mkdtempSync(join(tmpdir(), 'occ-gate-'));
/** Names the tests resolve (no DNS): a public name, and one an attacker points at loopback. */
const NAMES: Record<string, string[]> = {
  'public.example': ['203.0.113.80'],
  'rebind.example': ['203.0.113.7', '127.0.0.1'],
  'metadata.example': ['169.254.169.254'],
};
const resolve = async (host: string) => NAMES[host] ?? [];

let occApi: Server;
let occApiConnections = 0;
let upstream: Server;
const upstreamSaw: string[] = [];
const lines: string[] = [];

function listen(server: Server): Promise<number> {
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done((server.address() as AddressInfo).port)));
}

/** Sends `CONNECT target` through the gate's socket; the status line it answers. */
function connectThrough(socketPath: string, target: string): Promise<string> {
  return new Promise((done, fail) => {
    const socket = connect(socketPath, () => socket.write(`CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n\r\n`));
    socket.once('data', (data) => {
      done(data.toString('latin1').split('\r\n')[0]!);
      socket.destroy();
    });
    socket.once('error', fail);
  });
}

let direct: string;
let chained: string;

beforeAll(async () => {
  occApi = createServer((socket) => {
    occApiConnections += 1;
    socket.destroy();
  });
  await listen(occApi);
  // The operator's proxy: records what the gate asks it and answers every CONNECT with 200.
  upstream = createServer((socket) =>
    socket.once('data', (data) => {
      upstreamSaw.push(data.toString('latin1').split('\r\n')[0]!);
      socket.end('HTTP/1.1 200 Connection Established\r\n\r\n');
    }),
  );
  const upstreamPort = await listen(upstream);
  direct = join(dir, 'direct.sock');
  chained = join(dir, 'chained.sock');
  await startEgressGate(direct, (line) => lines.push(line), { resolve });
  await startEgressGate(chained, (line) => lines.push(line), {
    resolve,
    upstream: upstreamProxyOf({ HTTPS_PROXY: `http://127.0.0.1:${upstreamPort}`, NO_PROXY: 'internal.example' }),
  });
});

afterAll(() => {
  occApi.close();
  upstream.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the egress gate of a confined local runtime', () => {
  it('public addresses only: loopback, private, CGNAT, link-local, multicast and reserved are not', () => {
    for (const address of ['203.0.113.80', '8.8.8.8', '2606:4700::1111']) expect(isPublicAddress(address), address).toBe(true);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '100.64.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      'not-an-ip',
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it('a name is refused when any address it resolves to is not public (no rebinding to loopback)', async () => {
    expect(await decideEgress('public.example', resolve)).toEqual({ allowed: true, address: '203.0.113.80' });
    expect(await decideEgress('rebind.example', resolve)).toMatchObject({ allowed: false });
    expect(await decideEgress('metadata.example', resolve)).toMatchObject({ allowed: false });
    expect(await decideEgress('unknown.example', resolve)).toEqual({ allowed: false, reason: 'name not resolved' });
  });

  it('CONNECT to OCC’s loopback port, the metadata address or a rebinding name is answered 403 and never connected; each decision is logged', async () => {
    const apiPort = (occApi.address() as AddressInfo).port;
    expect(await connectThrough(direct, `127.0.0.1:${apiPort}`)).toBe('HTTP/1.1 403 Forbidden');
    expect(await connectThrough(direct, `localhost:${apiPort}`)).toBe('HTTP/1.1 403 Forbidden');
    expect(await connectThrough(direct, '169.254.169.254:80')).toBe('HTTP/1.1 403 Forbidden');
    expect(await connectThrough(direct, 'rebind.example:443')).toBe('HTTP/1.1 403 Forbidden');
    expect(occApiConnections).toBe(0);
    expect(lines).toContain(`egress refused: CONNECT 127.0.0.1:${apiPort} (not a public address (127.0.0.1))`);
    expect(lines.filter((line) => line.startsWith('egress refused'))).toHaveLength(4);
  });

  it('a plain HTTP request to a private address is refused the same way', async () => {
    const status = await new Promise<number>((done) => {
      const req = request({ socketPath: direct, path: `http://127.0.0.1:${(occApi.address() as AddressInfo).port}/installation`, method: 'GET' }, (res) =>
        done(res.statusCode ?? 0),
      );
      req.end();
    });
    expect(status).toBe(403);
    expect(occApiConnections).toBe(0);
  });

  it('with the operator’s proxy: an allowed destination goes through it by name; a refused one never reaches it', async () => {
    expect(await connectThrough(chained, 'public.example:443')).toBe('HTTP/1.1 200 Connection Established');
    expect(upstreamSaw).toEqual(['CONNECT public.example:443 HTTP/1.1']);
    expect(await connectThrough(chained, 'rebind.example:443')).toBe('HTTP/1.1 403 Forbidden');
    expect(upstreamSaw).toHaveLength(1);
  });
});
