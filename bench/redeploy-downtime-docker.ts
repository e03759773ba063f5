import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { demuxLog } from '../apps/controller/src/drivers/compute/docker/container-log.ts';
import { containerName } from '../apps/controller/src/drivers/compute/docker/container-spec.ts';
import { RUNTIME_PORTS } from '../apps/controller/src/drivers/compute/docker/runtime-ports.ts';
import { dockerComputeSettings } from '../apps/controller/src/drivers/compute/docker/settings.ts';
import { gatewayTokenOf } from '../test-support/docker/docker-world.ts';
import { relayToAgents } from '../test-support/docker/host-relay.ts';
import { removeInstallationObjects } from '../test-support/docker/remove-installation.ts';
import { ensureTestRuntimeImage } from '../test-support/docker/test-runtime-image.ts';
import type { RuntimeLogEvent } from '../test-support/local-gateway.ts';
import { startFixtureRegistry } from '../test-support/npm-registry.ts';
import { startBenchController } from './bench-controller.ts';
import { alternateModes, runRedeploy, type RedeployTarget } from './redeploy-downtime.ts';

/** The Agent's containers on the engine: a gateway through its relay port published on 127.0.0.1, and the runtime's log events. */
function dockerTarget(docker: Docker, installation: string, namespaceId: string): RedeployTarget {
  const container = (agentId: string, revisionId: string) => docker.getContainer(containerName(installation, { namespaceId, agentId, revisionId }));
  return {
    async gateway(agentId, revisionId) {
      try {
        const info = await container(agentId, revisionId).inspect();
        const port = Number(info.NetworkSettings.Ports?.[`${RUNTIME_PORTS.relay}/tcp`]?.find((b) => b.HostIp === '127.0.0.1')?.HostPort);
        return info.State.Running && port > 0 ? { port, token: gatewayTokenOf(info) } : null;
      } catch {
        return null;
      }
    },
    async events(agentId, revisionId) {
      const raw = (await container(agentId, revisionId).logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
      return demuxLog(raw)
        .split('\n')
        .filter((line) => line.startsWith('{') && line.includes('"source":"occ-runtime"'))
        .map((line) => JSON.parse(line) as RuntimeLogEvent);
    },
  };
}

/**
 * Redeploy downtime on `docker` (the real engine, the runtime image), each OCC_DOCKER_REDEPLOY mode
 * alternating, the same scenario as `redeploy-downtime` on local: the longest stretch no gateway of
 * the Agent answered `/readyz`, against the new gateway's own cold start in the same run.
 */
export async function benchRedeployDowntimeDocker(runs = Number(process.env.BENCH_DEPLOYS ?? 3)): Promise<void> {
  const image = await ensureTestRuntimeImage();
  const registry = await startFixtureRegistry();
  const relay = await relayToAgents(registry.url, dockerComputeSettings({ OCC_RUNTIME_IMAGE: image }).subnets);
  const dir = mkdtempSync(join(tmpdir(), 'occ-bench-redeploy-docker-'));
  const installation = `b${randomBytes(4).toString('hex')}`;
  const docker = new Docker();
  const saved = { ...process.env };
  try {
    const catalogPath = join(dir, 'catalog.json');
    writeFileSync(catalogPath, JSON.stringify(registry.catalog), { mode: 0o644 });
    process.env.OCC_OPENCLAW_CATALOG = catalogPath;
    await alternateModes(
      runs,
      async (mode) => {
        const env = {
          ...process.env,
          OCC_OPENCLAW_CATALOG: catalogPath,
          OCC_NPM_REGISTRY: relay.url,
          OCC_RUNTIME_IMAGE: image,
          OCC_DOCKER_INSTALLATION: installation,
          OCC_DOCKER_REDEPLOY: mode,
        };
        const bench = await startBenchController(env, { pollMs: 50, convergencePollMs: 100 }, 'docker');
        try {
          return await runRedeploy(bench, dockerTarget(docker, installation, bench.namespaceId));
        } finally {
          await bench.close();
          await removeInstallationObjects(docker, installation);
        }
      },
      { heading: 'Redeploy downtime on docker (one plugin changed)', variable: 'OCC_DOCKER_REDEPLOY' },
    );
  } finally {
    process.env = saved;
    await relay.close();
    await registry.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
