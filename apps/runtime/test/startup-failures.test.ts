import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { failedStatus, startRuntime, type RunningRuntime } from './support/runtime-process.ts';

// Failures found before anything is installed: the runtime keeps serving `failed` until SIGTERM.
describe('runtime startup failures before any install', () => {
  const started: RunningRuntime[] = [];
  afterAll(async () => {
    await Promise.all(started.map((runtime) => runtime.dispose()));
  });

  it('[N-1][N-8][W-2][S-1] an unknown selection fails the startup before any install; the status is private and stays served until SIGTERM', async () => {
    const runtime = await startRuntime({ selections: { 'openclaw:@nobody/not-in-the-catalog': { enabled: true }, 'llm-task': { enabled: true } } });
    started.push(runtime);

    const status = await runtime.settled(120_000);
    // The status names the selection and its violation (closed terms), never the violation's text.
    const detail = { plugin: 'openclaw:@nobody/not-in-the-catalog', violation: { code: 'UNSUPPORTED_VALUE', at: '' } } as const;
    expect(status).toEqual(failedStatus(runtime, 'PLUGIN_POLICY_INVALID', expect.any(String), detail));
    const events = runtime.events().map((event) => event.event);
    expect(events).toContain('policy.invalid');
    expect(events).not.toContain('plugin.install.start');
    expect(events).not.toContain('gateway.started');
    expect(existsSync(join(runtime.stateDir, 'npm'))).toBe(false);

    // endpoint.json: this process, 0600.
    expect(runtime.endpoint().pid).toBe(runtime.child.pid);
    expect(statSync(join(runtime.revisionDir, 'endpoint.json')).mode & 0o777).toBe(0o600);

    // The status endpoint answers only with the revision's token.
    expect((await runtime.fetchStatus(null)).status).toBe(401);
    expect((await runtime.fetchStatus('x'.repeat(32))).status).toBe(401);
    expect((await runtime.fetchStatus(`${runtime.statusToken}x`)).status).toBe(401);
    const ok = await runtime.fetchStatus();
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    const other = await fetch(`http://127.0.0.1:${runtime.endpoint().statusPort}/other`, { headers: { authorization: `Bearer ${runtime.statusToken}` } });
    expect(other.status).toBe(404);

    // Still serving after the failure; SIGTERM ends it cleanly. No token ever reaches the log.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(runtime.child.exitCode).toBeNull();
    expect(await runtime.stop()).toEqual({ code: 0, signal: null });
    expect(runtime.output()).not.toContain(runtime.statusToken);
    expect(runtime.output()).not.toContain(runtime.gatewayToken);
  });

  it('[S-1] an invalid manifest (a plugin driver of another harness, an unknown harness, or no JSON) fails with RUNTIME_MANIFEST_INVALID, naming the revision it could read', async () => {
    const codex = await startRuntime({
      selections: {},
      rawManifest: (manifest) => JSON.stringify({ ...manifest, harness: 'codex', plugins: { ...manifest.plugins, driverId: 'openclaw-curated' } }),
    });
    const foreignDriver = await startRuntime({
      selections: {},
      rawManifest: (manifest) => JSON.stringify({ ...manifest, plugins: { ...manifest.plugins, driverId: 'codex-hosted' } }),
    });
    const garbage = await startRuntime({ selections: {}, rawManifest: () => '{"revisionId": 42' });
    const unknownHarness = await startRuntime({ selections: {}, rawManifest: (manifest) => JSON.stringify({ ...manifest, harness: 'claude' }) });
    started.push(codex, foreignDriver, garbage, unknownHarness);
    const status = await codex.settled(60_000);
    expect(status).toMatchObject({ revisionId: codex.revisionId, phase: 'failed', gatewayPort: null, error: { code: 'RUNTIME_MANIFEST_INVALID' } });
    expect(await foreignDriver.settled(60_000)).toEqual(failedStatus(foreignDriver, 'RUNTIME_MANIFEST_INVALID'));
    expect(await unknownHarness.settled(60_000)).toEqual(failedStatus(unknownHarness, 'RUNTIME_MANIFEST_INVALID'));
    // Unreadable: still failed, with no revision id a driver could trust.
    expect(await garbage.settled(60_000)).toMatchObject({ revisionId: '', phase: 'failed', error: { code: 'RUNTIME_MANIFEST_INVALID' } });
  });
});
