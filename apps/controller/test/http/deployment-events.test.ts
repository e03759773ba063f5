import { rmSync } from 'node:fs';
import { get, type ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeProgressStep } from '@occ/contracts';
import { reconcileKey } from '../../src/core/use-cases/deploy.ts';
import { activeDeploymentEventWatchers, stepOfProgress } from '../../src/core/use-cases/deployment-events.ts';
import type { LocalComputeDriver } from '../../src/drivers/compute/local/index.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { admit, newDeployTarget, PLUGIN, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { eventShape, parseSse } from '../../../../test-support/sse-events.ts';
import { tempRoot, standInLocalCompute } from '../../../../test-support/stand-in-runtime.ts';
import { grant, newPrincipal } from '../../../../test-support/world.ts';

/** A GET over its own socket, resolved at the first chunk of the answer. */
function openRaw(url: string, key: string): Promise<{ request: ClientRequest; first: string }> {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers: { authorization: `Bearer ${key}` }, agent: false }, (res) => {
      res.once('data', (chunk: Buffer) => resolve({ request, first: chunk.toString('utf8') }));
    });
    request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
  });
}

/**
 * `GET …/deployments/:rev/events` over a controller whose worker drives the local ComputeDriver
 * with the stand-in runtime reporting the real runtime's typed progress in its status.
 */
describe('deployment events (Server-Sent Events)', () => {
  let t: TestController;
  let driver: LocalComputeDriver;
  const root = tempRoot();
  let target: DeployTarget;
  let revisionId: string;
  let baseUrl: string;
  /** The stream read live over a socket from right after the deploy was admitted. */
  let live: Promise<string>;
  const eventsUrl = (rev: string, tgt = target) => `${tgt.url}/deployments/${rev}/events`;
  const events = (url: string, headers: Record<string, string> = {}, key?: string) => t.request({ method: 'GET', url, headers, ...(key ? { key } : {}) });

  beforeAll(async () => {
    driver = standInLocalCompute(root);
    t = await startTestController({ compute: driver, worker: { leaseMs: 10_000, pollMs: 25, convergencePollMs: 50 } });
    t.controller.deps.eventStreams = { pollMs: 50 };
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    target = await newDeployTarget(t, {
      plugins: { [PLUGIN]: { enabled: true }, browser: { enabled: true } },
      values: { standIn: { startupSteps: true, failures: [{ pluginId: PLUGIN, code: 'PLUGIN_INSTALL_FAILED' }] } },
    });
    revisionId = (await admit(t, target)).id;
    live = fetch(`${baseUrl}${eventsUrl(revisionId)}`, { headers: { authorization: `Bearer ${t.adminKey}` } }).then((res) => res.text());
  });
  afterAll(async () => {
    await t?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('streams admitted, claimed, each runtime step, the warnings and the outcome, in order, then ends', async () => {
    expect((await waitTerminal(t, target, revisionId)).state).toBe('succeeded');
    const res = await events(eventsUrl(revisionId));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    const replay = parseSse(res.raw);
    expect(replay.map(eventShape)).toEqual([
      'admitted',
      'claimed 1',
      'step plan',
      'step write-config',
      ...['browser', PLUGIN].sort().map((key) => `step install ${key}`),
      'step install',
      'step registry-refresh',
      'step verify-installs',
      'step verify-config',
      'step gateway',
      `warning PLUGIN_INSTALL_FAILED ${PLUGIN}`,
      'succeeded REVISION_ACTIVATED',
    ]);
    const installs = replay.filter((e) => e.data.pluginId !== undefined && e.event === 'step');
    expect(Object.fromEntries(installs.map((e) => [e.data.pluginId, e.data.result]))).toEqual({ browser: 'done', [PLUGIN]: 'rejected' });
    expect(replay.every((e) => e.data.revisionId === revisionId && e.data.type === e.event)).toBe(true);
    const ids = replay.map((e) => Number(e.id));
    expect(ids.every((id, i) => Number.isSafeInteger(id) && (i === 0 || id > ids[i - 1]!))).toBe(true);
    // The stream read live while the deploy ran carried the same events with the same ids.
    expect(parseSse(await live)).toEqual(replay);
  });

  it('resumes after any Last-Event-ID with exactly the rest: no duplicate, no gap', async () => {
    await waitTerminal(t, target, revisionId);
    const all = parseSse((await events(eventsUrl(revisionId))).raw);
    for (const [i, event] of all.entries()) {
      const rest = parseSse((await events(eventsUrl(revisionId), { 'last-event-id': event.id })).raw);
      expect(rest, `after ${event.id}`).toEqual(all.slice(i + 1));
    }
    const bad = await events(eventsUrl(revisionId), { 'last-event-id': 'abc' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_REQUEST');
  });

  it("404 before the stream starts for an unknown revision or another Agent's; needs Agent read", async () => {
    const unknown = await events(eventsUrl('rev_00000000-0000-4000-8000-000000000000'));
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/json/);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    const other = await newDeployTarget(t);
    expect((await events(eventsUrl(revisionId, other))).status).toBe(404);
    const reader = await newPrincipal(t);
    expect((await events(eventsUrl(revisionId), {}, reader.key)).status).toBe(404);
    await grant(t, reader.id, [{ action: 'read', resourceKind: 'agent' }], { namespaceId: target.ns, resource: { kind: 'agent', id: target.agentId } });
    expect((await events(eventsUrl(revisionId), {}, reader.key)).status).toBe(200);
  });

  it('a client that disconnects costs nothing: its watcher, timer and polling end', async () => {
    // A gateway that never serves keeps the deploy converging: the stream would wait for its outcome.
    const pending = await newDeployTarget(t, { plugins: { browser: { enabled: true } }, values: { standIn: { startupSteps: true, gateway: 'never' } } });
    const rev = (await admit(t, pending)).id;
    const before = activeDeploymentEventWatchers();
    const connections = () => new Promise<number>((resolve, reject) => t.app.server.getConnections((error, n) => (error ? reject(error) : resolve(n))));
    const socketsBefore = await connections();
    const { request, first } = await openRaw(`${baseUrl}${eventsUrl(rev, pending)}`, t.adminKey);
    expect(first).toMatch(/^id: 1\nevent: admitted\n/);
    expect(activeDeploymentEventWatchers()).toBe(before + 1);
    request.destroy();
    await waitFor(
      'the watcher to end',
      async () => activeDeploymentEventWatchers(),
      (n) => n === before,
      5_000,
    );
    await waitFor('the connection to close', connections, (n) => n === socketsBefore, 5_000);
    // Bounded: with a short maximum duration the server ends the stream by itself.
    t.controller.deps.eventStreams = { pollMs: 50, maxMs: 200 };
    try {
      const bounded = await events(eventsUrl(rev, pending));
      expect(parseSse(bounded.raw)[0]!.event).toBe('admitted');
      expect(activeDeploymentEventWatchers()).toBe(before);
    } finally {
      t.controller.deps.eventStreams = { pollMs: 50 };
    }
    await t.request({ method: 'POST', url: `${pending.url}/stop` });
    await waitTerminal(t, pending, rev);
  });

  it('the steps come from the progress the worker stored, not the runtime log: a replay after the runtime is gone is the same stream', async () => {
    await waitTerminal(t, target, revisionId);
    const before = parseSse((await events(eventsUrl(revisionId))).raw);
    const stored = await t.controller.deps.state.read((uow) => uow.work.progress(reconcileKey(revisionId)));
    expect(stored).toHaveLength(1);
    expect(stored[0]!.steps.map((entry) => entry.step ?? entry.code)).toEqual([
      'plan',
      'write-config',
      'install',
      'install',
      'install',
      'registry-refresh',
      'verify-installs',
      'verify-config',
      'gateway',
    ]);
    // The runtime's log unreadable (gone with its host, or never kept): the stream does not change.
    const readLogs = driver.readLogs.bind(driver);
    driver.readLogs = () => Promise.reject(new Error('no runtime log'));
    try {
      expect(parseSse((await events(eventsUrl(revisionId))).raw)).toEqual(before);
    } finally {
      driver.readLogs = readLogs;
    }
  });

  it('canary: of a stored progress entry only closed values leave (no unknown step, plugin or code)', async () => {
    await waitTerminal(t, target, revisionId);
    const canary = `canary-${Math.random().toString(36).slice(2)}-secret`;
    const at = new Date(Date.now() - 60_000).toISOString();
    // Whatever a row holds (the runtime's status schema already refuses these): a new startup's.
    const steps = [
      { at, step: 'plan' },
      { at, step: canary },
      { at, step: 'install', pluginId: canary, result: 'done' },
      { at, step: 'install', pluginId: 'browser', result: 'rejected' },
      { at, step: 'install', pluginId: 'browser', result: canary },
      { at, code: canary },
      { at: canary, step: 'plan' },
    ] as unknown as RuntimeProgressStep[];
    await t.controller.deps.state.autocommit((uow) => uow.work.recordProgress(reconcileKey(revisionId), { startupId: 'canary-startup-0000', steps }));
    const res = await events(eventsUrl(revisionId));
    expect(res.status).toBe(200);
    expect(res.raw).not.toContain(canary);
    const injected = parseSse(res.raw)
      .filter((e) => e.event === 'step' && e.data.at === at)
      .map((e) => e.data);
    expect(injected).toEqual([
      { type: 'step', revisionId, phase: 'plan', step: 'plan', at },
      { type: 'step', revisionId, phase: 'install', step: 'install', pluginId: 'browser', result: 'rejected', at },
      { type: 'step', revisionId, code: 'RUNTIME_FAILED', at },
    ]);
    expect(stepOfProgress({ at, step: 'install', pluginId: 'diffs', result: 'done' }, new Set(['diffs']))).toMatchObject({ pluginId: 'diffs', result: 'done' });
    expect(stepOfProgress({ at, step: 'install', pluginId: 'diffs', result: 'done' }, new Set(['other']))).toBeNull();
  });
});
