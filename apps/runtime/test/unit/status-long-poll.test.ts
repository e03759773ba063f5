import type { StartupStatus } from '@occ/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { startStatusServer, STATUS_VERSION_HEADER, type StatusServer } from '../../src/status-server.ts';

const TOKEN = 't'.repeat(32);
const preparing: StartupStatus = { revisionId: 'rev_1', startupId: 's1', phase: 'preparing', plugins: [], failures: [], gatewayPort: null, error: null };
let server: StatusServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function read(port: number, query = '') {
  const started = Date.now();
  const response = await fetch(`http://127.0.0.1:${port}/startup-status${query}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return { status: response.status, version: response.headers.get(STATUS_VERSION_HEADER), body: (await response.json()) as StartupStatus, ms: Date.now() - started };
}

describe('the startup status as a long-poll', () => {
  it('a read names the version; a long-poll on that version is held until the status changes, then answered at once', async () => {
    let status = preparing;
    server = await startStatusServer(TOKEN, () => status);
    const first = await read(server.port);
    expect(first.version).toMatch(/^[0-9a-f]{32}$/);
    let answered = false;
    const held = read(server.port, `?seen=${first.version}&waitMs=20000`).finally(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBe(false);
    status = { ...preparing, phase: 'ready', gatewayPort: 4242 };
    const changed = await held;
    expect(changed.body).toMatchObject({ phase: 'ready', gatewayPort: 4242 });
    expect(changed.version).not.toBe(first.version);
  });

  it('a version the caller did not see yet, or no wait, is answered at once; an unchanged status is answered when the wait ends', async () => {
    server = await startStatusServer(TOKEN, () => preparing);
    const { version } = await read(server.port);
    expect((await read(server.port, `?seen=${'0'.repeat(32)}&waitMs=10000`)).ms).toBeLessThan(2_000);
    expect((await read(server.port, `?seen=${version}`)).body).toEqual(preparing);
    const waited = await read(server.port, `?seen=${version}&waitMs=300`);
    expect(waited.body).toEqual(preparing);
    expect(waited.version).toBe(version);
  });

  it('[S-1] the status stays private: without the token a long-poll is refused at once, like any read', async () => {
    server = await startStatusServer(TOKEN, () => preparing);
    const { version } = await read(server.port);
    const started = Date.now();
    const refused = await fetch(`http://127.0.0.1:${server.port}/startup-status?seen=${version}&waitMs=10000`);
    expect(refused.status).toBe(401);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('at most eight long-polls are held at once; one more is answered at once, like a read', async () => {
    server = await startStatusServer(TOKEN, () => preparing);
    const { version } = await read(server.port);
    const cancel = new AbortController();
    const held = Array.from({ length: 8 }, () =>
      fetch(`http://127.0.0.1:${server!.port}/startup-status?seen=${version}&waitMs=20000`, { headers: { authorization: `Bearer ${TOKEN}` }, signal: cancel.signal }).catch(
        () => null,
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    let ninthAnswered = false;
    const ninth = read(server.port, `?seen=${version}&waitMs=20000`).finally(() => (ninthAnswered = true));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(ninthAnswered).toBe(true);
    expect((await ninth).version).toBe(version);
    cancel.abort();
    await Promise.all(held);
  });

  it('closing the server ends held long-polls', async () => {
    server = await startStatusServer(TOKEN, () => preparing);
    const { version } = await read(server.port);
    const held = read(server.port, `?seen=${version}&waitMs=20000`).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await server.close();
    server = null;
    await held;
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
