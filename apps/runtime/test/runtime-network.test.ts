import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeNetworkSettings } from '../../controller/src/drivers/compute/runtime-contract/network-settings.ts';
import { FIXTURE_PLUGINS, startFixtureRegistry, type FixtureRegistry } from '../../../test-support/npm-registry.ts';
import { throwawayTls } from '../../../test-support/throwaway-tls.ts';
import { startTlsFront, type TlsFront } from '../../../test-support/tls-front.ts';
import { startRuntime, type RunningRuntime } from './support/runtime-process.ts';

// Runtime network settings with the real runtime, OpenClaw CLI and npm: the fixture registry
// behind TLS whose certificate a throwaway CA signed (as behind a TLS-inspecting proxy). The two
// starts differ only in OCC_RUNTIME_CA_FILE, resolved by the local driver's own rule from this
// machine's environment, so the CA setting is what makes the install work.
const GOOD = FIXTURE_PLUGINS.good;
const SELECTION = `openclaw:${GOOD.package}`;

let registry: FixtureRegistry;
let front: TlsFront;
let caDir: string;
let caFile: string;
const started: RunningRuntime[] = [];

beforeAll(async () => {
  registry = await startFixtureRegistry();
  const tls = throwawayTls();
  front = await startTlsFront(registry.url, tls);
  caDir = mkdtempSync(join(tmpdir(), 'occ-runtime-ca-'));
  caFile = join(caDir, 'runtime-ca.pem');
  writeFileSync(caFile, tls.ca, { mode: 0o600 });
});

afterAll(async () => {
  for (const runtime of started.reverse()) await runtime.dispose();
  await front?.close();
  await registry?.close();
  if (caDir) rmSync(caDir, { recursive: true, force: true });
});

async function start(operatorEnv: NodeJS.ProcessEnv): Promise<RunningRuntime> {
  const runtime = await startRuntime({
    selections: { [SELECTION]: { enabled: true } },
    catalog: registry.catalog,
    registryUrl: front.url,
    network: runtimeNetworkSettings(operatorEnv),
  });
  started.push(runtime);
  return runtime;
}

describe('runtime network settings: a registry behind a CA of its own', () => {
  it('with OCC_RUNTIME_CA_FILE naming that CA, npm inside the runtime installs the plugin over TLS and the runtime is ready', async () => {
    const requestsBefore = front.requests();
    const refusedBefore = front.refusedHandshakes();
    const runtime = await start({ ...process.env, OCC_RUNTIME_CA_FILE: caFile });
    const status = await runtime.settled(900_000);
    expect(status).toEqual({
      revisionId: runtime.revisionId,
      startupId: runtime.endpoint().startupId,
      phase: 'ready',
      plugins: [SELECTION],
      failures: [],
      gatewayPort: expect.any(Number),
      error: null,
      // The plugin installed over TLS is what the serving gateway runs.
      loaded: expect.objectContaining({ plugins: expect.arrayContaining([expect.objectContaining({ id: FIXTURE_PLUGINS.good.pluginId })]) }),
      progress: expect.arrayContaining([expect.objectContaining({ step: 'install', pluginId: SELECTION, result: 'done' })]),
    });
    // The package came through the TLS front (packument and tarball), not some other way.
    expect(front.requests() - requestsBefore).toBeGreaterThanOrEqual(2);
    expect(front.refusedHandshakes()).toBe(refusedBefore);
  });

  it('without it (only what this machine trusts), npm refuses the registry certificate and the plugin is not installed', async () => {
    const refusedBefore = front.refusedHandshakes();
    const startedAt = Date.now();
    const runtime = await start({ ...process.env, OCC_RUNTIME_CA_FILE: undefined });
    const status = await runtime.settled(900_000);
    console.log(
      `install against an untrusted registry certificate settled as ${status.phase} (${status.error?.code ?? status.failures.map((f) => f.code).join(',')}) in ${Date.now() - startedAt} ms`,
    );
    // npm reached the registry's TLS and broke off the handshake: the certificate is what failed.
    expect(front.refusedHandshakes()).toBeGreaterThan(refusedBefore);
    expect(status.plugins).toEqual([]);
    // A transport failure is an ordinary startup failure, never a rejected install ([W-2]).
    expect(status).toMatchObject({ phase: 'failed', failures: [], error: { code: 'PLUGIN_SOURCE_UNREACHABLE' } });
  });
});
