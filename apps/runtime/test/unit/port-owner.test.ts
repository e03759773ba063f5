import { createServer, type Server } from 'node:net';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { listeningInodes, parentPid, portOwnership, procIPv4 } from '../../src/port-owner.ts';

// Recorded from this machine's /proc/net/tcp (the header line, then sockets).
const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 578 1 00000000b9866634 100 0 0 10 0
   1: 0100007F:958F 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 113429 1 000000008b07cef1 100 0 0 10 0
   2: 0100007F:958F 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 113500 1 000000008b07cef1 100 0 0 10 0
`;

const listen = (host: string): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => resolve(server));
  });
const portOf = (server: Server) => (server.address() as { port: number }).port;

describe('who listens on the gateway port', () => {
  it('reads listening sockets of one port from /proc/net/tcp (an established connection on it is not a listener)', () => {
    expect(listeningInodes(TCP, 0x958f)).toEqual(['113429']);
    expect(listeningInodes(TCP, 0x07e8)).toEqual(['578']);
    expect(listeningInodes(TCP, 1)).toEqual([]);
    expect(listeningInodes('', 0x958f)).toEqual([]);
  });

  it('with the address the gateway binds, counts only listeners on it or on the wildcard (another pod’s address on a shared host network is not in the way)', () => {
    expect(procIPv4('127.0.0.1')).toBe('0100007F');
    expect(listeningInodes(TCP, 0x958f, '127.0.0.2')).toEqual([]);
    expect(listeningInodes(TCP, 0x958f, '127.0.0.1')).toEqual(['113429']);
    expect(listeningInodes(TCP, 0x07e8, '127.0.0.2')).toEqual(['578']);
  });

  it('reads the parent pid even when the command name holds spaces and parentheses', () => {
    expect(parentPid('4242 (node (gw) x) S 4200 4242 4242 0 -1 4194560')).toBe(4200);
  });

  it('a port this process listens on belongs to it; a free port to nobody', async () => {
    const server = await listen('127.0.0.1');
    const port = portOf(server);
    try {
      expect(portOwnership(port, process.pid)).toBe('gateway');
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect(portOwnership(port, process.pid)).toBe('nobody');
  });

  it('a port another process took is not the gateway’s, whatever the gateway listens on', async () => {
    const server = await listen('127.0.0.1');
    // A process outside this one's tree: a sibling, not a child (children count as the gateway's).
    const sleeper = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    try {
      expect(portOwnership(portOf(server), sleeper.pid!)).toBe('another process');
    } finally {
      sleeper.kill('SIGKILL');
      await new Promise((r) => server.close(r));
    }
  });
});
