import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_PLUGINS, useFixtureRegistry, type FixtureRegistry } from '../../../test-support/npm-registry.ts';
import { throwawayTls } from '../../../test-support/throwaway-tls.ts';
import { DEFAULT_INSTALL_TIMEOUT_MS } from '../src/environment.ts';
import { failedStatus, startRuntime, type RunningRuntime } from './support/runtime-process.ts';
import { stateLeases } from './support/state-leases.ts';
import { processLive } from '@occ/host-io/process-group';
import { waitFor } from '../../../test-support/deploy-helpers.ts';

// The real runtime and pinned CLI against the ways an install's package source can fail (README.md,
// "Install failures"): a registry that is down, one that never answers, one whose TLS nobody
// trusts. None reaches a package, so they cost seconds. A package OpenClaw rejects (beside a
// disabled one whose install the CLI writes into the operator's plugin lists) is proven through the
// API by apps/controller/test/e2e/openclaw-plugin-failures.test.ts: one real prepare, not two.
const GOOD = FIXTURE_PLUGINS.good;
/** OpenClaw's serialization of plugin changes on one Agent's state (its `core:plugin-lifecycle` state lease). */
const PLUGIN_LIFECYCLE_LEASE = 'core:plugin-lifecycle';

let registry: FixtureRegistry;
let untrusted: HttpsServer;
const started: RunningRuntime[] = [];

beforeAll(async () => {
  registry = await useFixtureRegistry();
  const tls = throwawayTls();
  // The CA travels in the chain, as a TLS-inspecting proxy sends it.
  untrusted = createHttpsServer({ cert: `${tls.cert}${tls.ca}`, key: tls.key }, (_request, response) => response.writeHead(404).end('{}'));
  await new Promise<void>((resolve) => untrusted.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  for (const runtime of started.reverse()) await runtime.dispose();
  untrusted?.close();
  await registry?.close();
});

async function start(input: Parameters<typeof startRuntime>[0]): Promise<RunningRuntime> {
  const runtime = await startRuntime({ catalog: registry.catalog, ...input });
  started.push(runtime);
  return runtime;
}

async function closedLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const unreachableEvents = (runtime: RunningRuntime) => runtime.events().filter((event) => event.event === 'plugin.install.unreachable');

/** A registry that accepts connections and never answers (a hung proxy or firewall). */
async function silentRegistry(): Promise<{ url: string; close: () => Promise<void> }> {
  const held = new Set<import('node:net').Socket>();
  const server = createServer((socket) => {
    held.add(socket);
    socket.on('close', () => held.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: async () => {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('install failures with the real CLI', () => {
  it('[W-2] a registry that is down: the startup fails with PLUGIN_SOURCE_UNREACHABLE (ECONNREFUSED) with the default settings, in well under the install deadline', async () => {
    const runtime = await start({ selections: { [GOOD.package]: { enabled: true } }, registryUrl: `http://127.0.0.1:${await closedLoopbackPort()}/` });
    const status = await runtime.settled(120_000);
    expect(status).toEqual(failedStatus(runtime, 'PLUGIN_SOURCE_UNREACHABLE', `Installing ${GOOD.package} could not use its package source (ECONNREFUSED).`));
    const [event] = unreachableEvents(runtime);
    expect(event).toMatchObject({ selectionKey: GOOD.package, reason: 'ECONNREFUSED', deadlineMs: DEFAULT_INSTALL_TIMEOUT_MS });
    // npm's retries are shortened for the runtime: seconds, not npm's default minute per request.
    expect(event!.ms as number).toBeLessThan(45_000);
    console.log(`refused registry reported ${event!.ms} ms after the install started`);
    const events = runtime.events().map((found) => found.event);
    expect(events).not.toContain('plugin.install.rejected');
    expect(events).not.toContain('gateway.started');
  });

  it('[W-2] a registry that never answers: the install deadline ends it, PLUGIN_SOURCE_UNREACHABLE (DEADLINE_EXCEEDED) in bounded time', async () => {
    const deadlineMs = 8_000;
    const silent = await silentRegistry();
    try {
      const runtime = await start({ selections: { [GOOD.package]: { enabled: true } }, registryUrl: silent.url, env: { OCC_RUNTIME_INSTALL_TIMEOUT_MS: String(deadlineMs) } });
      const status = await runtime.settled(120_000);
      expect(status).toEqual(failedStatus(runtime, 'PLUGIN_SOURCE_UNREACHABLE', `Installing ${GOOD.package} could not use its package source (DEADLINE_EXCEEDED).`));
      const [event] = unreachableEvents(runtime);
      expect(event).toMatchObject({ selectionKey: GOOD.package, reason: 'DEADLINE_EXCEEDED', deadlineMs });
      // Reported at the deadline (plus the kill grace at most).
      expect(event!.ms as number).toBeGreaterThanOrEqual(deadlineMs);
      expect(event!.ms as number).toBeLessThan(deadlineMs + 6_000);
      expect(runtime.events().map((found) => found.event)).not.toContain('gateway.started');
    } finally {
      await silent.close();
    }
  });

  it("[K-10] a runtime stopped while an install holds OpenClaw's plugin lifecycle lease leaves no lease the Agent's next start would wait out", async () => {
    const silent = await silentRegistry();
    try {
      const runtime = await start({ selections: { [GOOD.package]: { enabled: true } }, registryUrl: silent.url, env: { OCC_RUNTIME_INSTALL_TIMEOUT_MS: '120000' } });
      // The install waits on the silent registry under the lease: a row that names no process and lasts 300 s.
      const held = await waitFor(
        'the install holding the plugin lifecycle lease',
        async () => stateLeases(runtime.stateDir),
        (leases) => leases.some((lease) => lease.scope === PLUGIN_LIFECYCLE_LEASE),
        90_000,
        500,
      );
      expect(held.find((lease) => lease.scope === PLUGIN_LIFECYCLE_LEASE)!.msLeft).toBeGreaterThan(60_000);
      expect(await runtime.stop()).toEqual({ code: 0, signal: null });
      // Gone, or (a lease OpenClaw takes with its holder's pid, as its startup migrations' is) naming a holder
      // that no longer runs, which OpenClaw takes back at once: none lasts out its 300 s.
      const left = stateLeases(runtime.stateDir);
      expect(left.filter((lease) => lease.scope === PLUGIN_LIFECYCLE_LEASE)).toEqual([]);
      for (const lease of left) expect(lease.ownerPid !== null && !processLive(lease.ownerPid), JSON.stringify(lease)).toBe(true);
    } finally {
      await silent.close();
    }
  });

  it('[W-2] a registry behind a CA nobody trusts: npm’s SELF_SIGNED_CERT_IN_CHAIN fails the startup with PLUGIN_SOURCE_UNREACHABLE, named in the log without the URL', async () => {
    const registryUrl = `https://127.0.0.1:${(untrusted.address() as AddressInfo).port}/`;
    const runtime = await start({ selections: { [GOOD.package]: { enabled: true } }, registryUrl });
    const status = await runtime.settled(120_000);
    expect(status).toEqual(failedStatus(runtime, 'PLUGIN_SOURCE_UNREACHABLE', `Installing ${GOOD.package} could not use its package source (SELF_SIGNED_CERT_IN_CHAIN).`));
    const [event] = unreachableEvents(runtime);
    expect(event).toMatchObject({ reason: 'SELF_SIGNED_CERT_IN_CHAIN', code: 'PLUGIN_SOURCE_UNREACHABLE' });
    expect(JSON.stringify(runtime.events())).not.toContain(registryUrl);
  });
});
