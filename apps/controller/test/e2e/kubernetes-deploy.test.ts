import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runtimeLaunchCommand } from '@occ/runtime/launch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createComputeDriver } from '../../src/composition/compute-drivers.ts';
import { agentObjectNames, LABEL_REVISION_ID } from '../../src/drivers/compute/kubernetes/render/index.ts';
import { admit, newDeployTarget, waitTerminal } from '../../../../test-support/deploy-helpers.ts';
import { WORKER } from '../../../../test-support/e2e-local.ts';
import { startFakeApiServer, type FakeApiServer } from '../../../../test-support/kubernetes/fake-api-server.ts';
import { FIXTURE_PLUGINS, useFixtureRegistry, type FixtureRegistry } from '../../../../test-support/npm-registry.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';

// The controller with OCC_COMPUTE_DRIVER=kubernetes against the fake API server, whose kubelet
// runs the runtime image as the REAL runtime (the pinned Node, OpenClaw installing a curated
// plugin from the run's fixture registry) behind the pod proxy. One deploy (CI budget).
const DEPLOY_MS = 300_000;
const NS = 'occ-agents';
const IMAGE = 'occ-runtime:e2e';
const GOOD = FIXTURE_PLUGINS.good;
// Outside every path the pod mounts (/tmp, /var/lib/occ, /etc/occ): the fake kubelet maps a path
// under a mount into the pod's volume, as a real pod would not see the host's file there either
// (the catalog is in the runtime image on a real cluster). A checkout under /tmp must work too.
const OUTSIDE_POD_MOUNTS = '/var/tmp';

let fake: FakeApiServer;
let registry: FixtureRegistry;
let root: string;
let t: TestController;

beforeAll(async () => {
  registry = await useFixtureRegistry();
  fake = await startFakeApiServer({ images: { [IMAGE]: () => runtimeLaunchCommand() } });
  root = mkdtempSync(join(OUTSIDE_POD_MOUNTS, 'occ-k8s-e2e-'));
  const catalogPath = join(root, 'catalog.json');
  writeFileSync(catalogPath, JSON.stringify(registry.catalog), { mode: 0o644 });
  writeFileSync(join(root, 'kubeconfig'), fake.kubeConfig(), { mode: 0o600 });
  // The controller's curated PluginDriver reads the operator's catalog at construction.
  process.env.OCC_OPENCLAW_CATALOG = catalogPath;
  const compute = await createComputeDriver('kubernetes', {
    dataDir: root,
    env: {
      ...process.env,
      KUBECONFIG: join(root, 'kubeconfig'),
      OCC_KUBERNETES_NAMESPACE: NS,
      OCC_RUNTIME_IMAGE: IMAGE,
      OCC_OPENCLAW_CATALOG: catalogPath,
      OCC_NPM_REGISTRY: registry.url,
    },
  });
  if (compute?.id !== 'kubernetes') throw new Error('no kubernetes ComputeDriver');
  t = await startTestController({ compute, worker: WORKER });
}, 120_000);

afterAll(async () => {
  await t?.close().catch(() => {});
  await fake?.close();
  await registry?.close();
  delete process.env.OCC_OPENCLAW_CATALOG;
  if (root) rmSync(root, { recursive: true, force: true });
}, 120_000);

describe('the kubernetes ComputeDriver end to end (fake API server, real runtime)', () => {
  it(
    'an Agent with one curated OpenClaw plugin deploys: succeeded, its Service selects the revision, the live view answers',
    async () => {
      // Configuration values are OpenClaw configuration: none here (the helper's default is not valid OpenClaw config).
      const target = await newDeployTarget(t, { plugins: { [`openclaw:${GOOD.package}`]: { enabled: true } }, values: {} });
      const started = Date.now();
      const revision = (await admit(t, target)).id;
      const status = await waitTerminal(t, target, revision, DEPLOY_MS);
      console.log(`kubernetes deploy (fake API server, real runtime, one plugin): ${Date.now() - started} ms`);
      expect(status).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true, error: null, warnings: [] });

      const service = fake.objects('Service', NS).find((s) => s.metadata.name === agentObjectNames(target.agentId).service);
      expect(service.spec.selector[LABEL_REVISION_ID]).toBe(revision);
      const pods = fake.objects('Pod', NS).filter((p) => p.metadata.labels?.[LABEL_REVISION_ID] === revision);
      expect(pods).toHaveLength(1);

      const live = await t.request({ method: 'GET', url: `${target.url}/deployments/${revision}/runtime` });
      expect(live.status, live.raw).toBe(200);
      expect(live.body.data).toMatchObject({ running: true, ready: true, phase: 'ready', restarts: 0 });
      const logs = await t.request({ method: 'GET', url: `${target.url}/deployments/${revision}/runtime/logs?tail=50` });
      expect(logs.status, logs.raw).toBe(200);
    },
    DEPLOY_MS + 60_000,
  );
});
