import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { AppServerError, startAppServer, type AppServerClient, type AppServerNotification } from '../../src/codex/app-server-client.ts';

// The protocol edges of the client, against a stand-in peer (the real `codex app-server` is
// exercised in ../codex-app-server.test.ts; it cannot be made to hang or write garbage on demand).
const standIn = fileURLToPath(new URL('../fixtures/app-server-stand-in.mjs', import.meta.url));
let client: AppServerClient | undefined;
afterEach(async () => client?.close());

async function start(extra: { requestTimeoutMs?: number; onNotification?: (n: AppServerNotification) => void } = {}) {
  client = await startAppServer({ codexEntry: standIn, nodeBinary: process.execPath, env: { CODEX_HOME: '/nowhere/codex-home' }, cwd: process.cwd(), ...extra });
  return client;
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('resolved'),
    (error: unknown) => error as AppServerError,
  );

describe('startAppServer (stdio JSON-RPC)', () => {
  it('runs `app-server --listen stdio://` with only the given environment, completes initialize, and answers by id', async () => {
    const notifications: AppServerNotification[] = [];
    const c = await start({ onNotification: (n) => notifications.push(n) });
    expect(c.initialized).toEqual({ userAgent: 'stand-in', codexHome: '/nowhere/codex-home' });
    expect(notifications).toEqual([{ method: 'stand-in/hello', params: { argv: ['app-server', '--listen', 'stdio://'] } }]);
    const [a, b] = await Promise.all([c.request('config/read', { n: 1 }), c.request('plugin/list', { n: 2 })]);
    expect([a, b]).toEqual([{ echo: { n: 1 } }, { echo: { n: 2 } }]);
  });

  it('a request nobody answers fails with `timeout` at its deadline; the connection stays usable', async () => {
    const c = await start({ requestTimeoutMs: 10_000 });
    const error = await failure(c.request('never/answers', undefined, { timeoutMs: 200 }));
    expect(error).toBeInstanceOf(AppServerError);
    expect([error.kind, error.method]).toEqual(['timeout', 'never/answers']);
    expect(await c.request('still/here')).toEqual({ echo: null });
  });

  it("the caller's signal aborts a request with `aborted`", async () => {
    const c = await start();
    const controller = new AbortController();
    const pending = c.request('never/answers', undefined, { signal: controller.signal });
    controller.abort();
    expect((await failure(pending)).kind).toBe('aborted');
  });

  it('a line that is not JSON-RPC fails every pending request with `malformed`, stops the peer, and fails later requests at once', async () => {
    const c = await start();
    const waiting = c.request('never/answers');
    const garbage = c.request('garbage');
    expect((await failure(garbage)).kind).toBe('malformed');
    expect((await failure(waiting)).kind).toBe('malformed');
    await c.exited;
    expect((await failure(c.request('after'))).kind).toBe('malformed');
  });

  it('an exit while a request waits fails it with `exit`, and `exited` reports the code', async () => {
    const c = await start();
    const waiting = c.request('never/answers');
    expect((await failure(c.request('exit'))).kind).toBe('exit');
    expect((await failure(waiting)).kind).toBe('exit');
    expect(await c.exited).toEqual({ code: 3, signal: null });
  });

  it('a request the server makes of us is refused (method not found), so it never waits on us', async () => {
    const c = await start();
    expect(await c.request('asks/us')).toEqual({ answered: { id: 'server-1', error: { code: -32601, message: 'The OCC runtime grants no client requests.' } } });
  });

  it('an entry that cannot start fails initialize with `exit`, leaving nothing running', async () => {
    const error = await failure(startAppServer({ codexEntry: '/nonexistent/codex.js', nodeBinary: process.execPath, env: {}, cwd: process.cwd() }));
    expect([error.kind, error.method]).toEqual(['exit', 'initialize']);
  });
});
