import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppServerClient, AppServerError } from '../src/codex/app-server-client.ts';
import { connectAppServer } from '../src/codex/app-server-connection.ts';
import { startAppServerGate, type AppServerGate } from '../src/codex/app-server-gate.ts';
import { startListeningAppServer, type ListeningAppServer } from '../src/codex/app-server-listener.ts';
import { appServerCredential } from '../src/codex/credential.ts';
import { pinnedToolchain } from '../src/toolchain.ts';

// The gate in front of the real `codex app-server`, attacked as an Agent's tool would: with the
// gateway's credential (its tools can read the gateway's environment) and the app-server's own methods.
const gatewayCredential = appServerCredential('t'.repeat(43), 'rev_gate', 'startup-1');
const inner = 'inner-'.repeat(8);
let home: string;
let server: ListeningAppServer;
let gate: AppServerGate;
const clients: AppServerClient[] = [];

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'occ-codex-gate-'));
  const toolchain = pinnedToolchain();
  server = await startListeningAppServer({
    codexEntry: toolchain.codexEntry,
    nodeBinary: toolchain.nodeBinary,
    cwd: home,
    credential: inner,
    env: { PATH: `${toolchain.nodeBinDir}:${process.env.PATH ?? ''}`, HOME: home, CODEX_HOME: home },
  });
  gate = await startAppServerGate({
    listen: { host: '127.0.0.1', port: 0 },
    credential: gatewayCredential,
    upstream: { url: server.url, credential: inner },
    context: { roots: [home] },
  });
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await gate?.close();
  await server?.stop();
  rmSync(home, { recursive: true, force: true });
});

const connect = async (url: string, credential: string) => {
  const client = await connectAppServer(url, credential, { requestTimeoutMs: 20_000 });
  clients.push(client);
  return client;
};
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('answered'),
    (error: unknown) => error as AppServerError,
  );
/** A command that leaves a mark, so that whether it ran is seen on disk and not only in an answer. */
const markingCommand = (mark: string) => ({ command: ['sh', '-c', `echo ran > ${mark}`], cwd: home, sandboxPolicy: { type: 'dangerFullAccess' } });

describe('the gate between the gateway and its app-server (the real codex app-server)', () => {
  it('[G-6] the app-server itself refuses the credential the gateway holds (HTTP 401): only the gate takes it', async () => {
    const refused = await failure(connect(server.url, gatewayCredential));
    expect([refused.kind, refused.rpcCode]).toEqual(['rpc', 401]);
    const none = await failure(connect(gate.url, ''));
    expect([none.kind, none.rpcCode]).toEqual(['rpc', 401]);
  }, 60_000);

  it("[G-6] [X-2] with the gateway's credential, a command, a configuration write or a thread with an MCP server of its own is refused and never reaches the app-server; reads pass", async () => {
    const client = await connect(gate.url, gatewayCredential);
    expect(client.initialized).toMatchObject({ codexHome: home });
    // Reads pass through the gate unchanged.
    expect(await client.request<{ config: Record<string, unknown> }>('config/read', {})).toHaveProperty('config.model');
    const mark = join(home, 'gated-mark');
    const refused = await failure(client.request('command/exec', markingCommand(mark)));
    expect([refused.kind, refused.rpcCode, refused.rpcMessage]).toEqual([
      'rpc',
      -32600,
      'OCC does not let the gateway ask the app-server this: command/exec (the method is not one a turn needs).',
    ]);
    const write = await failure(client.request('config/batchWrite', { edits: [{ keyPath: 'mcp_servers.x.command', value: 'sh', mergeStrategy: 'upsert' }] }));
    expect(write.rpcMessage).toContain('config/batchWrite');
    const thread = await failure(client.request('thread/start', { cwd: home, config: { 'mcp_servers.x.command': 'sh' } }));
    expect(thread.rpcMessage).toBe('OCC does not let the gateway ask the app-server this: thread/start (config mcp_servers.x.command: an MCP server may only be switched off).');
    expect(existsSync(mark)).toBe(false);
    const { config } = await client.request<{ config: { mcp_servers?: Record<string, unknown> | null } }>('config/read', {});
    expect(config.mcp_servers ?? {}).not.toHaveProperty('x');
    // The same command on the app-server's own connection runs: what stopped it above is the gate.
    const direct = await connect(server.url, inner);
    await direct.request('command/exec', markingCommand(join(home, 'direct-mark')));
    expect(existsSync(join(home, 'direct-mark'))).toBe(true);
  }, 60_000);

  it("[G-6] a thread started through the gate runs read-only, with no approval to ask, whatever it asked; the app-server's own connection would have given what was asked", async () => {
    type Held = { sandbox: { type: string }; approvalPolicy: string };
    const asked = { cwd: home, sandbox: 'danger-full-access', approvalPolicy: 'on-request', ephemeral: true };
    const gated = await (await connect(gate.url, gatewayCredential)).request<Held>('thread/start', asked);
    expect([gated.sandbox.type, gated.approvalPolicy]).toEqual(['readOnly', 'never']);
    const direct = await (await connect(server.url, inner)).request<Held>('thread/start', asked);
    expect([direct.sandbox.type, direct.approvalPolicy]).toEqual(['dangerFullAccess', 'on-request']);
  }, 60_000);
});
