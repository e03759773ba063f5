import type { StartupStatus } from '@occ/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchStartupStatus } from '../../src/drivers/compute/runtime-contract/startup-status.ts';
import { StatusChanges } from '../../src/drivers/compute/runtime-contract/status-changes.ts';
import { startStatusServer, type StatusServer } from '../../../runtime/src/status-server.ts';

// The driver's side of the runtime's long-poll, against the runtime's own status server.
const TOKEN = 's'.repeat(32);
const KEY = 'agt_1/rev_1';
const preparing: StartupStatus = { revisionId: 'rev_1', startupId: 'st_1', phase: 'preparing', plugins: [], failures: [], gatewayPort: null, error: null };
let server: StatusServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  void promise.finally(() => (settled = true)).catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, ms));
  return settled;
}

describe('waiting for the next status of a runtime (StatusChanges)', () => {
  it('waits on the version last read, and ends the moment the runtime serves another status', async () => {
    let status = preparing;
    server = await startStatusServer(TOKEN, () => status);
    const changes = new StatusChanges(2_000);
    const read = await fetchStartupStatus(server.port, TOKEN, AbortSignal.timeout(5_000), 2_000);
    expect(read).toMatchObject({ body: preparing, version: expect.stringMatching(/^[0-9a-f]{32}$/) });
    changes.record(KEY, server.port, TOKEN, read);
    const waiting = changes.awaitChange(KEY, AbortSignal.timeout(30_000));
    expect(await settledWithin(waiting, 400)).toBe(false);
    status = { ...preparing, phase: 'ready', gatewayPort: 4100 };
    await waiting;
    // The next read is the new version: nothing more to wait for until it changes again.
    const next = await fetchStartupStatus(server.port, TOKEN, AbortSignal.timeout(5_000), 2_000);
    expect(typeof next === 'object' && typeof read === 'object' && next.version !== read.version).toBe(true);
  });

  it('ends when the runtime goes away (its process ended), and is cancelled by its signal', async () => {
    server = await startStatusServer(TOKEN, () => preparing);
    const changes = new StatusChanges(2_000);
    changes.record(KEY, server.port, TOKEN, await fetchStartupStatus(server.port, TOKEN, AbortSignal.timeout(5_000), 2_000));
    const waiting = changes.awaitChange(KEY, AbortSignal.timeout(30_000));
    expect(await settledWithin(waiting, 300)).toBe(false);
    await server.close();
    server = null;
    await waiting;

    server = await startStatusServer(TOKEN, () => preparing);
    changes.record(KEY, server.port, TOKEN, await fetchStartupStatus(server.port, TOKEN, AbortSignal.timeout(5_000), 2_000));
    const cancel = new AbortController();
    const cancelled = changes.awaitChange(KEY, cancel.signal);
    cancel.abort();
    await expect(cancelled).rejects.toThrow();
  });

  it('without a version to wait on (nothing served yet, or a runtime that names none) nothing ends the wait but its signal', async () => {
    const changes = new StatusChanges(2_000);
    const cancel = new AbortController();
    const unread = changes.awaitChange(KEY, cancel.signal);
    changes.record('agt_1/rev_2', 1, TOKEN, 'unreachable');
    const unversioned = changes.awaitChange('agt_1/rev_2', cancel.signal);
    expect(await settledWithin(Promise.race([unread, unversioned]), 1_000)).toBe(false);
    cancel.abort();
    await expect(unread).rejects.toThrow();
    await expect(unversioned).rejects.toThrow();
  });
});
