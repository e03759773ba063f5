import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runtimeLaunchCommand } from '@occ/runtime/launch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createComputeDriver } from '../../src/composition/compute-drivers.ts';
import { LABEL_REVISION_ID } from '../../src/drivers/compute/kubernetes/render/index.ts';
import { admit, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { WORKER } from '../../../../test-support/e2e-local.ts';
import { startFakeHostedCatalog, type FakeHostedCatalog } from '../../../../test-support/fake-hosted-catalog.ts';
import { startFakeApiServer, type FakeApiServer } from '../../../../test-support/kubernetes/fake-api-server.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, uniqueName } from '../../../../test-support/world.ts';

// A Codex Agent with OCC_COMPUTE_DRIVER=kubernetes against the fake API server, whose kubelet runs
// the runtime image as the REAL runtime: the pinned harness plugin installed into the pod's state,
// the real `codex app-server` signed in with the codex_pat the driver delivers as a Kubernetes
// Secret, the gateway with the Codex harness. The hosted service is the HTTPS fake.
const DEPLOY_MS = 420_000;
const NS = 'occ-agents';
const IMAGE = 'occ-runtime:e2e';
const PAT = `at-k8s-canary-${randomBytes(12).toString('hex')}`;
// Outside every path the pod mounts (see kubernetes-deploy.test.ts).
const OUTSIDE_POD_MOUNTS = '/var/tmp';

let fake: FakeApiServer;
let hosted: FakeHostedCatalog;
let root: string;
let t: TestController;
let target: DeployTarget;

beforeAll(async () => {
  hosted = await startFakeHostedCatalog();
  hosted.accounts.set(PAT, { accountId: 'acct-k8s' });
  fake = await startFakeApiServer({ images: { [IMAGE]: () => runtimeLaunchCommand() } });
  root = mkdtempSync(join(OUTSIDE_POD_MOUNTS, 'occ-k8s-codex-'));
  const caFile = join(root, 'ca.pem');
  writeFileSync(caFile, hosted.ca, { mode: 0o644 });
  writeFileSync(join(root, 'kubeconfig'), fake.kubeConfig(), { mode: 0o600 });
  const compute = createComputeDriver('kubernetes', {
    dataDir: root,
    env: {
      ...process.env,
      KUBECONFIG: join(root, 'kubeconfig'),
      OCC_KUBERNETES_NAMESPACE: NS,
      OCC_RUNTIME_IMAGE: IMAGE,
      OCC_CODEX_CATALOG_URL: hosted.catalogBaseUrl,
      OCC_CODEX_IDENTITY_URL: hosted.identityBaseUrl,
      OCC_RUNTIME_CA_FILE: caFile,
    },
  });
  if (!compute || compute.id !== 'kubernetes') throw new Error('no kubernetes ComputeDriver');
  t = await startTestController({ compute, worker: WORKER, work: { maxAttempts: 1 } });
  const ns = t.defaultNamespaceId;
  const patId = (await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('codex-pat'), value: PAT })).id;
  const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
  const agent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('codex'), configurationId: cfg.id, harness: 'codex', harnessAuth: { method: 'codex_pat', secretId: patId }, plugins: {} });
  target = { ns, cfg: cfg.id, agentId: agent.id, servicePrincipalId: agent.servicePrincipalId, url: `/namespaces/${ns}/agents/${agent.id}` };
  await grant(t, agent.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: patId } });
}, 120_000);

afterAll(async () => {
  await t?.close().catch(() => {});
  await fake?.close();
  await hosted?.close();
  if (root) rmSync(root, { recursive: true, force: true });
}, 120_000);

describe('a Codex Agent on the kubernetes ComputeDriver (fake API server, real runtime)', () => {
  it(
    '[G-6][K-8] deploys: the app-server signs in with the codex_pat the driver delivered as a Secret, the gateway serves, the pod spec names no token',
    async () => {
      const started = Date.now();
      const revision = (await admit(t, target)).id;
      const status = await waitTerminal(t, target, revision, DEPLOY_MS);
      console.log(`kubernetes codex deploy: ${status.state} after ${Date.now() - started} ms`);
      expect(status).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true, error: null, warnings: [] });
      const whoamis = hosted.requests.filter((r) => r.path === '/api/accounts/v1/user-auth-credential/whoami');
      expect(whoamis.length).toBeGreaterThan(0);
      expect(whoamis.every((r) => r.headers.authorization === `Bearer ${PAT}`)).toBe(true);
      const live = await t.request({ method: 'GET', url: `${target.url}/deployments/${revision}/runtime` });
      expect(live.body.data).toMatchObject({ running: true, ready: true, phase: 'ready', restarts: 0 });
      // The codex_pat reaches the pod through a Secret reference, never the pod spec itself.
      const pods = fake.objects('Pod', NS).filter((p) => p.metadata.labels?.[LABEL_REVISION_ID] === revision);
      expect(pods).toHaveLength(1);
      expect(JSON.stringify(pods[0])).not.toContain(PAT);
    },
    DEPLOY_MS + 60_000,
  );
});
