import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import type { PluginMap } from '@occ/contracts';
import { labelFilter } from '../apps/controller/src/drivers/compute/docker/container-spec.ts';
import { ensureTestRuntimeImage } from '../test-support/docker/test-runtime-image.ts';
import { FIXTURE_PLUGINS, startFixtureRegistry } from '../test-support/npm-registry.ts';
import { startBenchController, waitForDeployment } from './bench-controller.ts';
import { median } from './figures.ts';

// One npm plugin (the fixture `good`, from a local verdaccio) and the bundled `file-transfer`.
const SELECTIONS = {
  'file-transfer': { enabled: true, toolDefaults: { enabled: true, approval: 'none' } },
  [`openclaw:${FIXTURE_PLUGINS.good.package}`]: { enabled: true, toolDefaults: { enabled: true, approval: 'none' } },
} as PluginMap;
const CONFIGURATION = { tools: { profile: 'coding' } };

/** One deploy, POST deploy → `succeeded`, through a fresh in-process controller on `driver`. */
async function deployOnce(driver: string, env: NodeJS.ProcessEnv): Promise<number> {
  const bench = await startBenchController(env, { pollMs: 50, convergencePollMs: 100 }, driver);
  try {
    const ns = bench.namespaceId;
    const cfg = await bench.call('POST', `/namespaces/${ns}/configurations`, { name: 'bench', values: CONFIGURATION }, 201);
    const agent = await bench.call('POST', `/namespaces/${ns}/agents`, { name: 'bench-agent', configurationId: cfg.id, harness: 'openclaw', plugins: SELECTIONS }, 201);
    const url = `/namespaces/${ns}/agents/${agent.id}`;
    const started = performance.now();
    const revision = await bench.call('POST', `${url}/deploy`, undefined, 202);
    const status = await waitForDeployment(bench, url, revision.id, 100);
    if (status.state !== 'succeeded') throw new Error(`${driver} deploy ended ${JSON.stringify(status)}`);
    return performance.now() - started;
  } finally {
    await bench.close();
  }
}

/**
 * Deploy latency on the docker ComputeDriver (a hardened container of the runtime image on the
 * real engine: fresh tmpfs state, so every deploy installs from scratch) against the local
 * driver (a child process) as the baseline, alternating, BENCH_DEPLOYS times each.
 */
export async function benchDeployDocker(runs = Number(process.env.BENCH_DEPLOYS ?? 3)): Promise<void> {
  const image = await ensureTestRuntimeImage();
  const registry = await startFixtureRegistry();
  const dir = mkdtempSync(join(tmpdir(), 'occ-bench-docker-'));
  const installation = `b${randomBytes(4).toString('hex')}`;
  const docker = new Docker();
  const saved = process.env.OCC_OPENCLAW_CATALOG;
  try {
    const catalogPath = join(dir, 'catalog.json');
    writeFileSync(catalogPath, JSON.stringify(registry.catalog), { mode: 0o644 });
    process.env.OCC_OPENCLAW_CATALOG = catalogPath;
    const env = {
      ...process.env,
      OCC_OPENCLAW_CATALOG: catalogPath,
      OCC_NPM_REGISTRY: registry.url,
      OCC_RUNTIME_IMAGE: image,
      OCC_DOCKER_INSTALLATION: installation,
      OCC_DOCKER_CPUS: '2',
    };
    const local: number[] = [];
    const containers: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      local.push(await deployOnce('local', env));
      containers.push(await deployOnce('docker', env));
      console.log(`run ${i + 1}: local ${(local.at(-1)! / 1000).toFixed(2)} s, docker ${(containers.at(-1)! / 1000).toFixed(2)} s`);
    }
    console.log(
      `deploy (file-transfer + one npm plugin), median of ${runs}: local ${(median(local) / 1000).toFixed(2)} s (baseline), docker ${(median(containers) / 1000).toFixed(2)} s = ${(median(containers) / median(local)).toFixed(2)}× local`,
    );
  } finally {
    for (const c of await docker.listContainers({ all: true, filters: { label: labelFilter(installation) } }))
      await docker
        .getContainer(c.Id)
        .remove({ force: true })
        .catch(() => {});
    if (saved === undefined) delete process.env.OCC_OPENCLAW_CATALOG;
    else process.env.OCC_OPENCLAW_CATALOG = saved;
    await registry.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
