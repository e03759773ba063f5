import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CODEX_PAT_ENVIRONMENT } from '@occ/contracts';
import { processLive } from '@occ/host-io/process-group';
import { runtimeLaunchCommand } from '@occ/runtime/launch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createComputeDriver } from '../../src/composition/compute-drivers.ts';
import { LABEL_REVISION_ID } from '../../src/drivers/compute/kubernetes/render/index.ts';
import { admit, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
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
let revisionId: string;
let pod: any;

beforeAll(async () => {
  hosted = await startFakeHostedCatalog();
  hosted.accounts.set(PAT, { accountId: 'acct-k8s' });
  fake = await startFakeApiServer({ images: { [IMAGE]: () => runtimeLaunchCommand() } });
  root = mkdtempSync(join(OUTSIDE_POD_MOUNTS, 'occ-k8s-codex-'));
  const caFile = join(root, 'ca.pem');
  writeFileSync(caFile, hosted.ca, { mode: 0o644 });
  writeFileSync(join(root, 'kubeconfig'), fake.kubeConfig(), { mode: 0o600 });
  const compute = await createComputeDriver('kubernetes', {
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
  if (compute?.id !== 'kubernetes') throw new Error('no kubernetes ComputeDriver');
  t = await startTestController({ compute, worker: WORKER, work: { maxAttempts: 1 } });
  const ns = t.defaultNamespaceId;
  const patId = (await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('codex-pat'), value: PAT })).id;
  const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
  const agent = await adminCreate(t, `/namespaces/${ns}/agents`, {
    name: uniqueName('codex'),
    configurationId: cfg.id,
    harness: 'codex',
    harnessAuth: { method: 'codex_pat', secretId: patId },
    plugins: {},
  });
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
      revisionId = revision;
      pod = pods[0]!;
    },
    DEPLOY_MS + 60_000,
  );

  it('[G-6] two containers: the codex_pat is referenced by the app-server container only, and no process of the gateway container holds it', () => {
    const containers = pod.spec.containers as Array<{ name: string; env: Array<{ name: string; valueFrom?: { secretKeyRef?: unknown } }> }>;
    expect(containers.map((c) => c.name)).toEqual(['runtime', 'codex-app-server']);
    const names = (name: string) => containers.find((c) => c.name === name)!.env.map((e) => e.name);
    expect(names('runtime')).not.toContain(CODEX_PAT_ENVIRONMENT);
    expect(names('codex-app-server')).toContain(CODEX_PAT_ENVIRONMENT);
    const live = fake.objects('Pod', NS).find((p) => p.metadata.name === pod.metadata.name)!;
    expect(live.status.containerStatuses.map((c: { name: string; ready: boolean }) => [c.name, c.ready])).toEqual([
      ['runtime', true],
      ['codex-app-server', true],
    ]);
    // On this host the containers are process trees: the gateway runtime's (found by its role and its pod's address)
    // and everything it started — OpenClaw's gateway included — hold the token nowhere in their environment.
    const inPod = `OCC_RUNTIME_STATUS_ADDRESS=${live.status.podIP}\0`;
    const inGateway = hostProcesses()
      .filter((p) => p.environ.includes('OCC_RUNTIME_CODEX_ROLE=gateway\0') && p.environ.includes(inPod))
      .map((p) => p.pid);
    // The container's first process (a launcher may pass the same environment to the runtime it starts).
    const gatewayRoots = inGateway.filter((pid) => !inGateway.includes(parentOf(pid)));
    expect(gatewayRoots).toHaveLength(1);
    const tree = descendants(gatewayRoots[0]!);
    expect(tree.length).toBeGreaterThan(1);
    expect(tree.filter((pid) => readEnviron(pid).includes(PAT))).toEqual([]);
    // …while the app-server container's runtime does hold it (the probe can see it where it is).
    expect(hostProcesses().some((p) => p.environ.includes('OCC_RUNTIME_CODEX_ROLE=app-server\0') && p.environ.includes(inPod) && p.environ.includes(PAT))).toBe(true);
  });

  it('[G-9][G-8] the app-server container is killed: the runtime container goes non-ready, keeps its OpenClaw gateway until the new app-server is prepared, and is ready again on it without restarting', async () => {
    const view = async () =>
      (await t.request({ method: 'GET', url: `${target.url}/deployments/${revisionId}/runtime` })).body.data as {
        ready: boolean;
        phase: string | null;
        startupId: string | null;
        restarts: number;
      };
    const before = await view();
    const [oldGateway] = await openclawGatewayPids();
    expect(oldGateway).toBeDefined();
    fake.killContainer(NS, pod.metadata.name, 'codex-app-server');
    await waitFor('the runtime to leave ready', view, (v) => v.phase !== 'ready', 60_000, 200);
    // Not ready, yet the old gateway still runs: it is stopped only once a new peer is prepared ([G-9]).
    expect(processLive(oldGateway!)).toBe(true);
    const after = await waitFor('ready again', view, (v) => v.ready, 300_000, 1_000);
    expect(after).toMatchObject({ phase: 'ready', startupId: before.startupId, restarts: 0 });
    const gateways = await openclawGatewayPids();
    expect(gateways).toHaveLength(2);
    expect(gateways[0]).toBe(oldGateway);
    expect(processLive(oldGateway!)).toBe(false);
    expect(processLive(gateways[1]!)).toBe(true);
    const restarts = fake
      .objects('Pod', NS)
      .find((p) => p.metadata.name === pod.metadata.name)!
      .status.containerStatuses.map((c: { name: string; restartCount: number }) => [c.name, c.restartCount]);
    expect(restarts).toEqual([
      ['runtime', 0],
      ['codex-app-server', 1],
    ]);
  }, 360_000);
});

/** The OpenClaw gateways the runtime container started, oldest first (its `gateway.started` lines; on this host, host pids). */
async function openclawGatewayPids(): Promise<number[]> {
  const logs = await t.request({ method: 'GET', url: `${target.url}/deployments/${revisionId}/runtime/logs?tail=1000` });
  expect(logs.status, logs.raw).toBe(200);
  return (logs.body.data.lines as string[]).flatMap((line) => {
    const pid = /"event":"gateway\.started","pid":(\d+)/.exec(line)?.[1];
    return pid ? [Number(pid)] : [];
  });
}

interface HostProcess {
  pid: number;
  environ: string;
}

function readEnviron(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return '';
  }
}

function hostProcesses(): HostProcess[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map((entry) => ({ pid: Number(entry), environ: readEnviron(Number(entry)) }));
}

function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0; // gone meanwhile
  }
}

/** `pid` and every process below it, from /proc's parent links. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) parents.set(Number(entry), parentOf(Number(entry)));
  const found = [pid];
  for (let i = 0; i < found.length; i++) for (const [child, parent] of parents) if (parent === found[i]) found.push(child);
  return found;
}
