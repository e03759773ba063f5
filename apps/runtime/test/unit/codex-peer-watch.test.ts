import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StartupStatus } from '@occ/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { peerChanged } from '../../src/codex/peer-status.ts';

// peerChanged against a real loopback status server; the clock and the pause between reads are
// the test's, so "30 s of silence" takes no wall time.
const revisionId = 'rev_0b0c5d52-9b5e-4f77-9d2a-1d6a2b3c4d5e';
const TOKEN = 'status-token-for-the-peer-watch';
const ready = (startupId: string): StartupStatus => ({
  revisionId,
  startupId,
  phase: 'ready',
  plugins: [],
  failures: [],
  gatewayPort: null,
  error: null,
  codexPeer: { appServerPort: 8183, codexPlugins: { enabled: true, allow_all_plugins: false, plugins: {} } },
});

let server: Server | undefined;
afterEach(() => server?.close());

/** A peer whose answer the test sets per read: a status, or silence (a 503, as a busy or restarting peer). */
async function peer(): Promise<{ port: number; answer: (next: StartupStatus | null) => void }> {
  let current: StartupStatus | null = null;
  server = createServer((request, response) => {
    if (request.headers.authorization !== `Bearer ${TOKEN}` || current === null) return void response.writeHead(503).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(current));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, answer: (next) => (current = next) };
}

function watchOn(port: number, script: (read: number, clock: { now: number }) => void) {
  const clock = { now: 0 };
  let reads = 0;
  const signal = new AbortController().signal;
  return {
    watch: {
      peer: { host: '127.0.0.1', port },
      token: TOKEN,
      revisionId,
      enabledSelections: new Set<string>(),
      signal,
      now: () => clock.now,
      sleep: async (ms: number) => {
        clock.now += ms;
        script(++reads, clock);
      },
    },
    reads: () => reads,
  };
}

describe('[G-9] the gateway watching its serving peer', () => {
  it('a peer silent for a few reads under load is not a restarted one; silent past the grace it is unreachable', async () => {
    const { port, answer } = await peer();
    answer(ready('peer-startup-aaaaaaaa'));
    // Reads 2–6 unanswered (about 2.5 s of polls), then the same startup answers again until read 10,
    // then silence for good: only that long silence ends the watch, as `unreachable`.
    const { watch, reads } = watchOn(port, (read, clock) => {
      if (read === 2) answer(null);
      if (read === 7) answer(ready('peer-startup-aaaaaaaa'));
      if (read === 10) answer(null);
      if (read > 10) clock.now += 5_000; // each unanswered read then waits out its timeout
    });
    expect(await peerChanged(watch, 'peer-startup-aaaaaaaa')).toBe('unreachable');
    expect(reads()).toBeGreaterThan(10);
  });

  it('a peer whose status port refuses connections (its process is gone) is unreachable after three reads, without the grace', async () => {
    const { port, answer } = await peer();
    answer(ready('peer-startup-aaaaaaaa'));
    const { watch, reads } = watchOn(port, (read) => {
      if (read === 2) server!.close();
    });
    expect(await peerChanged(watch, 'peer-startup-aaaaaaaa')).toBe('unreachable');
    expect(reads()).toBe(4);
  });

  it('a new startup of the peer is a change at once, without waiting for any grace', async () => {
    const { port, answer } = await peer();
    answer(ready('peer-startup-aaaaaaaa'));
    const { watch, reads } = watchOn(port, (read) => {
      if (read === 3) answer(ready('peer-startup-bbbbbbbb'));
    });
    expect(await peerChanged(watch, 'peer-startup-aaaaaaaa')).toBe('changed');
    expect(reads()).toBe(3);
  });

  it('a peer that answers but is no longer ready is a change at once', async () => {
    const { port, answer } = await peer();
    answer(ready('peer-startup-aaaaaaaa'));
    const { watch } = watchOn(port, (read) => {
      if (read === 2) answer({ ...ready('peer-startup-aaaaaaaa'), phase: 'preparing' });
    });
    expect(await peerChanged(watch, 'peer-startup-aaaaaaaa')).toBe('changed');
  });
});
