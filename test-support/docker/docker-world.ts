// One docker test file's world: the runtime image, the run's fixture registry relayed to the
// Agents' networks, a docker ComputeDriver of its own installation label, and a controller on the
// file's own database (apps/controller/test/docker/docker-deploy.test.ts and
// docker-isolation.test.ts share it, so each file runs in parallel with its own resources).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { composeController, type ComposedController } from '../../apps/controller/src/composition/compose.ts';
import { createComputeDriver } from '../../apps/controller/src/composition/compute-drivers.ts';
import { labelFilter, networkName } from '../../apps/controller/src/drivers/compute/docker/container-spec.ts';
import { dockerComputeSettings } from '../../apps/controller/src/drivers/compute/docker/settings.ts';
import type { Cidr } from '../../apps/controller/src/drivers/compute/docker/subnets.ts';
import type { ComputeDriver } from '../../apps/controller/src/core/ports/compute-driver.ts';
import type { WorkerSettings } from '../../apps/controller/src/worker/worker-deps.ts';
import type { DeployTarget } from '../deploy-helpers.ts';
import { WORKER } from '../e2e-local.ts';
import { useFixtureRegistry, type FixtureRegistry } from '../npm-registry.ts';
import { startTestController, type TestController, type TestResponse } from '../test-controller.ts';
import { execInContainer } from './container-exec.ts';
import { relayToAgents, type HostRelay } from './host-relay.ts';
import { ensureTestRuntimeImage } from './test-runtime-image.ts';
import { removeInstallationObjects } from './remove-installation.ts';

export interface DockerWorld {
  docker: Docker;
  installation: string;
  image: string;
  /** The range the Agents' networks are made in (a host relay answers only them). */
  subnets: Cidr;
  registryRelay: HostRelay;
  /** The driver the first controller runs (a restarted OCC gets a new one of the same settings). */
  driver: ComputeDriver;
  /** The file's temporary data directory. */
  root: string;
  base: TestController;
  /** The controller now serving (after restartOcc, the new one on the same database). */
  current(): ComposedController;
  /** The current controller as a TestController, for the deploy helpers. */
  t(): TestController;
  request(options: { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; body?: unknown }): Promise<TestResponse>;
  /** Closes the controller and composes a new one on the same database with a new driver (an OCC restart). */
  /** A new controller on the same database; `worker` overrides the test worker's settings (WORKER) for it. */
  restartOcc(worker?: Partial<WorkerSettings>): Promise<void>;
  containersOf(agentId: string): Promise<Docker.ContainerInspectInfo[]>;
  containerOf(revisionId: string): Promise<Docker.ContainerInspectInfo>;
  exec(id: string, cmd: string[], user?: string): ReturnType<typeof execInContainer>;
  networkOf(agentId: string): Promise<Docker.NetworkInspectInfo | null>;
  /** The live runtime view of a revision through the API. */
  live(revisionId: string, of: DeployTarget): Promise<any>;
  close(): Promise<void>;
}

/** The host port the engine published on 127.0.0.1 for a container port. */
export function publishedPort(info: Docker.ContainerInspectInfo, port: number): number {
  const binding = info.NetworkSettings.Ports[`${port}/tcp`]?.[0];
  if (binding?.HostIp !== '127.0.0.1') throw new Error(`${port}/tcp is not published on 127.0.0.1: ${JSON.stringify(binding)}`);
  return Number(binding.HostPort);
}

/** The gateway token the driver gave a runtime container. */
export function gatewayTokenOf(info: Docker.ContainerInspectInfo): string {
  return (info.Config.Env ?? []).find((e) => e.startsWith('OCC_RUNTIME_GATEWAY_TOKEN='))!.split('=')[1]!;
}

export async function startDockerWorld(): Promise<DockerWorld> {
  const docker = new Docker();
  const installation = `t${randomBytes(4).toString('hex')}`;
  const secretKey = randomBytes(32);
  const image = await ensureTestRuntimeImage();
  const subnets = dockerComputeSettings({ OCC_RUNTIME_IMAGE: image }).subnets;
  const registry: FixtureRegistry = await useFixtureRegistry();
  const registryRelay = await relayToAgents(registry.url, subnets);
  const root = mkdtempSync(join(tmpdir(), 'occ-docker-e2e-'));
  const catalogPath = join(root, 'catalog.json');
  writeFileSync(catalogPath, JSON.stringify(registry.catalog), { mode: 0o644 });
  process.env.OCC_OPENCLAW_CATALOG = catalogPath;
  const dockerCompute = async () => {
    const driver = await createComputeDriver('docker', {
      dataDir: root,
      env: {
        ...process.env,
        OCC_RUNTIME_IMAGE: image,
        OCC_DOCKER_INSTALLATION: installation,
        OCC_OPENCLAW_CATALOG: catalogPath,
        OCC_NPM_REGISTRY: registryRelay.url,
        OCC_DOCKER_MEMORY: '2g',
      },
    });
    if (driver?.id !== 'docker') throw new Error('no docker ComputeDriver');
    return driver;
  };
  // One attempt per deploy: a failing candidate fails at once (retries are the worker's own tests).
  const driver = await dockerCompute();
  const base = await startTestController({ compute: driver, worker: WORKER, secretKey, work: { maxAttempts: 1 } });
  let current: ComposedController = base.controller;

  const request: DockerWorld['request'] = async (options) => {
    const res = await current.app.inject({
      method: options.method,
      url: options.url,
      headers: { authorization: `Bearer ${base.adminKey}`, ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(options.body !== undefined ? { payload: JSON.stringify(options.body) } : {}),
    });
    return { status: res.statusCode, headers: res.headers, body: res.body ? JSON.parse(res.body) : undefined, raw: res.body };
  };
  const t = (): TestController => ({ ...base, request: (o) => request(o as Parameters<typeof request>[0]) }) as TestController;

  return {
    docker,
    installation,
    image,
    subnets,
    registryRelay,
    driver,
    root,
    base,
    current: () => current,
    t,
    request,
    async restartOcc(worker = {}) {
      await current.close();
      current = await composeController({
        database: base.database,
        secretKey,
        logger: { level: 'warn' },
        compute: await dockerCompute(),
        work: { maxAttempts: 1 },
        worker: { settings: { ...WORKER, ...worker }, backoff: { baseMs: 50, capMs: 500 } },
      });
    },
    async containersOf(agentId) {
      const found = await docker.listContainers({ all: true, filters: { label: labelFilter(installation, { agentId }) } });
      return Promise.all(found.map((c) => docker.getContainer(c.Id).inspect()));
    },
    async containerOf(revisionId) {
      const [found] = await docker.listContainers({ all: true, filters: { label: labelFilter(installation, { revisionId }) } });
      if (!found) throw new Error(`no container for ${revisionId}`);
      return docker.getContainer(found.Id).inspect();
    },
    exec: (id, cmd, user) => execInContainer(docker, id, cmd, user),
    networkOf: (agentId) =>
      docker
        .getNetwork(networkName(installation, agentId))
        .inspect()
        .catch((error: { statusCode?: number }) => {
          if (error.statusCode === 404) return null;
          throw error;
        }),
    async live(revisionId, of) {
      const res = await request({ method: 'GET', url: `${of.url}/deployments/${revisionId}/runtime` });
      if (res.status !== 200) throw new Error(`the live runtime view answered ${res.status}: ${res.raw}`);
      return res.body.data;
    },
    async close() {
      await removeInstallationObjects(docker, installation);
      await registryRelay.close();
      if (current !== base.controller) await current.close().catch(() => {});
      await base.close().catch(() => {});
      await registry.close();
      delete process.env.OCC_OPENCLAW_CATALOG;
      rmSync(root, { recursive: true, force: true });
    },
  };
}
