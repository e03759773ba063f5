import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { childPids, processLive, processName } from '@occ/host-io/process-group';
import type { AppServerError, AppServerClient } from '../src/codex/app-server-client.ts';
import { connectAppServer } from '../src/codex/app-server-connection.ts';
import { startListeningAppServer, type ListeningAppServer } from '../src/codex/app-server-listener.ts';
import { appServerCredential } from '../src/codex/credential.ts';
import { pinnedToolchain } from '../src/toolchain.ts';

// The dedicated app-server as the gateway reaches it: the real `codex app-server` listening on a
// loopback WebSocket that only the current startup's credential opens.
const transportSecret = 't'.repeat(43);
let home: string;
let server: ListeningAppServer | undefined;
const clients: AppServerClient[] = [];

beforeEach(() => (home = mkdtempSync(join(tmpdir(), 'occ-codex-ws-'))));
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await server?.stop();
  server = undefined;
  rmSync(home, { recursive: true, force: true });
});

function listen(credential: string) {
  const toolchain = pinnedToolchain();
  return startListeningAppServer({
    codexEntry: toolchain.codexEntry,
    nodeBinary: toolchain.nodeBinary,
    cwd: home,
    credential,
    env: { PATH: `${toolchain.nodeBinDir}:${process.env.PATH ?? ''}`, HOME: home, CODEX_HOME: home },
  });
}
const connect = async (url: string, credential: string) => {
  const client = await connectAppServer(url, credential, { requestTimeoutMs: 10_000 });
  clients.push(client);
  return client;
};
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('connected'),
    (error: unknown) => error as AppServerError,
  );

describe('the dedicated app-server on a loopback WebSocket', () => {
  it("[S-3] [G-6] runs as its own process on an OS-chosen loopback port; the startup's credential opens it and reads its configuration with no plugin", async () => {
    const credential = appServerCredential(transportSecret, 'rev_a', 'startup-1');
    server = await listen(credential);
    expect(server.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    expect(server.url).not.toMatch(/:0$/);
    const client = await connect(server.url, credential);
    expect(client.initialized).toMatchObject({ codexHome: home });
    const { config } = await client.request<{ config: Record<string, unknown> }>('config/read', {});
    expect(config).toHaveProperty('model');
    expect((await client.request<{ marketplaces: unknown[] }>('plugin/list', {})).marketplaces).toEqual([]);
  }, 60_000);

  it('[G-8] refuses a credential of another startup (HTTP 401) and a connection without one', async () => {
    server = await listen(appServerCredential(transportSecret, 'rev_a', 'startup-2'));
    const stale = await refusal(connect(server.url, appServerCredential(transportSecret, 'rev_a', 'startup-1')));
    expect([stale.kind, stale.rpcCode]).toEqual(['rpc', 401]);
    const none = await refusal(connect(server.url, ''));
    expect([none.kind, none.rpcCode]).toEqual(['rpc', 401]);
  }, 60_000);

  it('[W-2] the app-server going away ends the connection and later requests fail with `exit`; stop leaves no process behind', async () => {
    const credential = appServerCredential(transportSecret, 'rev_a', 'startup-3');
    server = await listen(credential);
    const client = await connect(server.url, credential);
    const pids = [server.pid!, ...childPids(server.pid)];
    expect(pids.slice(1).map(processName)).toEqual(['codex']);
    await server.stop();
    expect(pids.map(processLive)).toEqual([false, false]);
    await client.exited;
    const error = await client.request('config/read', {}).then(
      () => expect.unreachable('answered'),
      (e: unknown) => e as AppServerError,
    );
    expect([error.kind, error.method]).toEqual(['exit', 'config/read']);
  }, 60_000);

  it('[W-2] when the Node wrapper dies hard, the platform binary it leaves behind is killed too (nothing keeps listening)', async () => {
    server = await listen(appServerCredential(transportSecret, 'rev_a', 'startup-4'));
    const [binary] = childPids(server.pid);
    process.kill(server.pid!, 'SIGKILL');
    await server.exited;
    expect(processLive(binary!)).toBe(false);
  }, 60_000);
});
