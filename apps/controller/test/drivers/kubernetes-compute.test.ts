import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRevision, RuntimeManifest } from '@occ/contracts';
import { ComputeValidationError } from '../../src/core/ports/compute-driver.ts';
import { KubernetesApiError, type KubernetesApi } from '../../src/drivers/compute/kubernetes/api.ts';
import { applyObject } from '../../src/drivers/compute/kubernetes/apply.ts';
import { createKubernetesComputeDriver, type KubernetesComputeDriver } from '../../src/drivers/compute/kubernetes/index.ts';
import { agentObjectNames, LABEL_REVISION_ID, MANIFEST_KEY } from '../../src/drivers/compute/kubernetes/render/index.ts';
import { kubernetesComputeSettings, KubernetesSettingError } from '../../src/drivers/compute/kubernetes/settings.ts';
import { startFakeApiServer, type FakeApiServer } from '../../../../test-support/kubernetes/fake-api-server.ts';
import { prepareSettled, standInLaunch, standInRevision, type StandInScenario } from '../../../../test-support/stand-in-runtime.ts';
import { StaticStartAuthority } from '../../../../test-support/static-start-authority.ts';

/**
 * The kubernetes ComputeDriver against the fake API server (test-support/kubernetes), whose
 * kubelet runs the runtime image as the stand-in runtime: the real client, the real wire format,
 * real processes behind the pod proxy. The real runtime and OpenClaw: e2e/kubernetes-deploy.
 */
const NS = 'occ-agents';
const IMAGE = 'occ-runtime:stand-in';
const CANARY = 'canary-secret-value-7c1f';
const ctx = () => ({ signal: AbortSignal.timeout(20_000) });

let fake: FakeApiServer;
let dir: string;
let driver: KubernetesComputeDriver;
let api: KubernetesApi;
const authority = new StaticStartAuthority();

function env(overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { KUBECONFIG: join(dir, 'kubeconfig'), OCC_KUBERNETES_NAMESPACE: NS, OCC_RUNTIME_IMAGE: IMAGE, ...overrides };
}

function newDriver(overrides: Record<string, string> = {}): KubernetesComputeDriver {
  const created = createKubernetesComputeDriver({ settings: kubernetesComputeSettings(env(overrides)), readyWaitMs: 500, probeTimeoutMs: 2_000 });
  created.start(authority);
  return created;
}

beforeAll(async () => {
  fake = await startFakeApiServer({ images: { [IMAGE]: () => standInLaunch() } });
  dir = mkdtempSync(join(tmpdir(), 'occ-k8s-driver-'));
  writeFileSync(join(dir, 'kubeconfig'), fake.kubeConfig(), { mode: 0o600 });
  driver = newDriver();
  api = driver.api;
});

afterAll(async () => {
  await driver?.close();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A revision of `agentId` (fresh Agent unless given) whose stand-in plays `scenario`, delivering CANARY under CANARY_TOKEN. */
function revisionOf(
  scenario: StandInScenario,
  options: { agentId?: string; namespaceId?: string; revision?: number } = {},
): { revision: AgentRevision; manifest: RuntimeManifest } {
  const made = standInRevision(scenario, { ...options, secretBindings: ['CANARY_TOKEN'] });
  const revision = { ...made.revision, computeDriverId: 'kubernetes' };
  authority.deliver(revision.id, { CANARY_TOKEN: CANARY });
  return { revision, manifest: made.manifest };
}

/** Polls `read` until it answers something other than null. */
async function waitFor<T>(read: () => Promise<T | null>, timeoutMs: number): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== null) return value;
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const eventIndex = (predicate: (e: FakeApiServer['events'][number]) => boolean) => fake.events.findIndex(predicate);
const podsOf = (revisionId: string) => fake.objects('Pod', NS).filter((p) => p.metadata.labels?.[LABEL_REVISION_ID] === revisionId);
const serviceSelects = (agentId: string) =>
  fake.objects('Service', NS).find((s) => s.metadata.name === agentObjectNames(agentId).service)?.spec.selector[LABEL_REVISION_ID] ?? null;

describe('kubernetes ComputeDriver: one Agent, three revisions', () => {
  const first = revisionOf({ leakSecrets: true });
  const agent = { namespaceId: first.revision.namespaceId, agentId: first.revision.agentId };
  const second = revisionOf({}, { ...agent, revision: 2 });
  const names = agentObjectNames(agent.agentId);

  it('[P-4] the NetworkPolicies exist before the first gateway: ServiceAccount, policies, ConfigMap, Secret, Deployment, then the pod', async () => {
    expect(await prepareSettled(driver, first.revision, first.manifest, 20_000)).toEqual({ state: 'ready', warnings: [] });
    const created = (kind: string) =>
      eventIndex((e) => e.verb === 'create' && e.kind === kind && e.namespace === NS && (kind === 'Pod' || e.name.startsWith(names.serviceAccount)));
    const order = ['ServiceAccount', 'NetworkPolicy', 'ConfigMap', 'Secret', 'Deployment', 'Pod'].map(created);
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    const policies = fake.events.filter((e) => e.verb === 'create' && e.kind === 'NetworkPolicy' && e.name.startsWith(names.serviceAccount));
    expect(policies.map((e) => e.name)).toEqual([names.networkPolicyDefaultDeny, names.networkPolicyEgress, names.networkPolicyStatus]);
    const lastPolicy = fake.events.indexOf(policies.at(-1)!);
    expect(lastPolicy).toBeLessThan(order[5]!);
  });

  it('[P-2] the revision manifest is projected from an immutable ConfigMap of its own; no Secret value outside the Secret, and the log reader sees tokens and delivered values redacted', async () => {
    const configMap = fake.objects('ConfigMap', NS).find((c) => c.metadata.labels?.[LABEL_REVISION_ID] === first.revision.id);
    expect(configMap.immutable).toBe(true);
    expect(JSON.parse(configMap.data[MANIFEST_KEY])).toEqual(first.manifest);
    const deployment = fake.objects('Deployment', NS).find((d) => d.metadata.name === names.deployment);
    const volume = deployment.spec.template.spec.volumes.find((v: { name: string }) => v.name === 'manifest');
    expect(volume.projected.sources[0].configMap.name).toBe(configMap.metadata.name);
    // The stand-in read the manifest from the projected file and serves its revision: the status was trusted (ready above).
    const secret = fake.objects('Secret', NS).find((s) => s.metadata.labels?.[LABEL_REVISION_ID] === first.revision.id);
    expect(Buffer.from(secret.data.CANARY_TOKEN, 'base64').toString()).toBe(CANARY);
    const token = Buffer.from(secret.data.OCC_RUNTIME_STATUS_TOKEN, 'base64').toString();
    const everythingElse = JSON.stringify(['Deployment', 'ConfigMap', 'Pod', 'Service', 'ServiceAccount', 'NetworkPolicy'].flatMap((k) => fake.objects(k, NS)));
    for (const value of [CANARY, token]) expect(everythingElse).not.toContain(value);
    const logs = await driver.readLogs(agent, first.revision.id, { tail: 200 });
    expect(logs.lines.some((line) => line.includes('stand-in start'))).toBe(true);
    // The stand-in printed its status token and the delivered value (a leaky plugin): the reader sees neither.
    expect(logs.lines).toContain('stand-in leaks [redacted] [redacted]');
    for (const value of [CANARY, token]) expect(logs.lines.join('\n')).not.toContain(value);
  });

  it('[G-4] the status NetworkPolicies precede the first gateway pod, and the Service is created only at activation, selecting the revision; the live view answers through the pod proxy', async () => {
    const statusPolicy = eventIndex((e) => e.verb === 'create' && e.kind === 'NetworkPolicy' && e.name === names.networkPolicyStatus);
    const firstPod = eventIndex((e) => e.verb === 'create' && e.kind === 'Pod' && e.name === podsOf(first.revision.id)[0]?.metadata.name);
    expect(statusPolicy).toBeGreaterThanOrEqual(0);
    expect(statusPolicy).toBeLessThan(firstPod);
    expect(serviceSelects(agent.agentId)).toBeNull();
    expect(fake.events.some((e) => e.kind === 'Service' && e.name === names.service)).toBe(false);
    await driver.activateRevision(first.revision, ctx());
    expect(serviceSelects(agent.agentId)).toBe(first.revision.id);
    const view = await driver.describeRuntime(agent, first.revision.id);
    expect(view).toMatchObject({ running: true, phase: 'ready', ready: true, restarts: 0, deliveredSecrets: ['CANARY_TOKEN'], lastFailureCode: null });
    expect(view.startupId).toEqual(expect.any(String));
  });

  it('[S-2] a killed container restarts with a new startup id, recomputed from its own log line (never cached)', async () => {
    const before = await driver.describeRuntime(agent, first.revision.id);
    const [pod] = podsOf(first.revision.id);
    fake.killPod(NS, pod.metadata.name);
    const after = await waitFor(async () => {
      const view = await driver.describeRuntime(agent, first.revision.id);
      return view.ready && view.restarts === 1 ? view : null;
    }, 15_000);
    expect(after.startupId).not.toBe(before.startupId);
    expect(after.startupId).toEqual(expect.any(String));
  });

  it('[P-6][G-5] Recreate: the old pod is gone before the new one is created; the Service keeps the old revision until activation', async () => {
    const oldPod = podsOf(first.revision.id)[0].metadata.name;
    expect(await prepareSettled(driver, second.revision, second.manifest, 20_000)).toEqual({ state: 'ready', warnings: [] });
    const oldGone = eventIndex((e) => e.verb === 'delete' && e.kind === 'Pod' && e.name === oldPod);
    const newPod = podsOf(second.revision.id)[0].metadata.name;
    const newCreated = eventIndex((e) => e.verb === 'create' && e.kind === 'Pod' && e.name === newPod);
    expect(oldGone).toBeGreaterThanOrEqual(0);
    expect(oldGone).toBeLessThan(newCreated);
    expect(serviceSelects(agent.agentId)).toBe(first.revision.id);
    await driver.activateRevision(second.revision, ctx());
    expect(serviceSelects(agent.agentId)).toBe(second.revision.id);
  });

  it("a failed candidate fails its prepare with its code and is scaled to zero; restoreRevision (the worker asks) runs the active revision again, and at the periodic check applies a Deployment deleted behind OCC's back", async () => {
    const third = revisionOf({ outcome: 'failed', errorCode: 'PLUGIN_VERIFICATION_FAILED' }, { ...agent, revision: 3 });
    expect(await prepareSettled(driver, third.revision, third.manifest, 20_000)).toMatchObject({ state: 'failed', failure: { code: 'PLUGIN_VERIFICATION_FAILED' } });
    const gateway = () => fake.objects('Deployment', NS).find((d) => d.metadata.name === names.deployment);
    // A failed revision does not keep restarting while nothing else is decided.
    expect(gateway().spec.template.metadata.labels[LABEL_REVISION_ID]).toBe(third.revision.id);
    expect(gateway().spec.replicas).toBe(0);
    await driver.restoreRevision(second.revision, second.manifest, { kind: 'candidate-failed', revisionId: third.revision.id }, ctx());
    expect(gateway().spec.template.metadata.labels[LABEL_REVISION_ID]).toBe(second.revision.id);
    await waitFor(async () => ((await driver.describeRuntime(agent, second.revision.id)).ready ? true : null), 15_000);
    expect(serviceSelects(agent.agentId)).toBe(second.revision.id);
  });

  it("retire deletes a revision's ConfigMap and Secret; the one the Deployment runs (a candidate a deploy gave up) is scaled to zero and keeps them; stop scales the gateway to zero", async () => {
    await driver.retireRevision(agent, first.revision.id, ctx());
    const revisionsWith = (kind: string) => fake.objects(kind, NS).map((o) => o.metadata.labels?.[LABEL_REVISION_ID]);
    const replicas = () => fake.objects('Deployment', NS).find((d) => d.metadata.name === names.deployment).spec.replicas;
    for (const kind of ['ConfigMap', 'Secret']) expect(revisionsWith(kind)).not.toContain(first.revision.id);
    expect(replicas()).toBe(1);
    expect(podsOf(second.revision.id).length).toBeGreaterThan(0);

    await driver.retireRevision(agent, second.revision.id, ctx());
    for (const kind of ['ConfigMap', 'Secret']) expect(revisionsWith(kind)).toContain(second.revision.id);
    expect(replicas()).toBe(0);
    await waitFor(async () => (podsOf(second.revision.id).length === 0 ? true : null), 10_000);

    await driver.restoreRevision(second.revision, second.manifest, { kind: 'recovery' }, ctx());
    await waitFor(async () => (podsOf(second.revision.id).length > 0 ? true : null), 10_000);

    // The worker's periodic check: a running Deployment is left as it is; one deleted behind OCC's back is applied again.
    const running = fake.objects('Deployment', NS).find((d) => d.metadata.name === names.deployment).metadata.uid;
    await driver.restoreRevision(second.revision, second.manifest, { kind: 'check' }, ctx());
    expect(fake.objects('Deployment', NS).find((d) => d.metadata.name === names.deployment).metadata.uid).toBe(running);
    await api.delete('Deployment', NS, names.deployment);
    await waitFor(async () => (podsOf(second.revision.id).length === 0 ? true : null), 10_000);
    await driver.restoreRevision(second.revision, second.manifest, { kind: 'check' }, ctx());
    expect(fake.objects('Deployment', NS).find((d) => d.metadata.name === names.deployment).metadata.uid).not.toBe(running);
    await waitFor(async () => (podsOf(second.revision.id).length > 0 ? true : null), 10_000);
    await driver.stopRevision(agent, second.revision.id, ctx());
    expect(replicas()).toBe(0);
    await waitFor(async () => (podsOf(second.revision.id).length === 0 ? true : null), 10_000);
  });

  it("removeAgent (the deleted Agent's remove_agent work) deletes every object of the Agent, pods included, and nothing of another Agent; a repeat finds nothing", async () => {
    // Something of it still runs (a candidate the Agent never got to activate): removal stops it too.
    const fourth = revisionOf({}, { ...agent, revision: 4 });
    expect(await prepareSettled(driver, fourth.revision, fourth.manifest, 20_000)).toEqual({ state: 'ready', warnings: [] });
    const kinds = ['ServiceAccount', 'Deployment', 'ConfigMap', 'Secret', 'Service', 'NetworkPolicy', 'Pod'];
    const mine = () =>
      kinds
        .flatMap((k) => fake.objects(k, NS).map((o) => ({ kind: k, o })))
        .filter(({ o }) => o.metadata.labels?.['occ.dev/agent-id'] === agent.agentId || o.metadata.name === names.serviceAccount);
    // Another Agent's object in the same namespace stays.
    const bystander = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'occ-agt-bystander', labels: { 'occ.dev/agent-id': 'agt_00000000-0000-4000-8000-00000000beef' } },
      data: {},
    };
    await api.create('ConfigMap', NS, bystander);
    const before = mine()
      .filter(({ kind }) => kind !== 'Pod')
      .map(({ kind, o }) => ({ kind, name: o.metadata.name as string }));
    expect(new Set(before.map((r) => r.kind))).toEqual(new Set(['ServiceAccount', 'Deployment', 'ConfigMap', 'Secret', 'Service', 'NetworkPolicy']));

    const removed = await driver.removeAgent(agent, ctx());
    const byName = (a: { kind: string; name: string }, b: { kind: string; name: string }) => `${a.kind}/${a.name}`.localeCompare(`${b.kind}/${b.name}`);
    expect([...removed].sort(byName)).toEqual([...before].sort(byName));
    // The ServiceAccount, owner of the rest, goes last; the gateway first.
    expect(removed[0]!.kind).toBe('Deployment');
    expect(removed.at(-1)).toEqual({ kind: 'ServiceAccount', name: names.serviceAccount });
    // Pods go with their Deployment (garbage collection), each stopped gracefully by the kubelet.
    await waitFor(async () => (mine().length === 0 ? true : null), 15_000);
    expect(fake.objects('ConfigMap', NS).map((c) => c.metadata.name)).toContain('occ-agt-bystander');
    expect(await driver.removeAgent(agent, ctx())).toEqual([]);
    expect(await driver.describeRuntime(agent, fourth.revision.id)).toMatchObject({ running: false });
  });
});

describe('kubernetes ComputeDriver: what it refuses and how it reports', () => {
  it('[S-2] a status that lies about its startup id is never ready', async () => {
    const liar = revisionOf({ statusStartupId: 'not-this-start' });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await driver.prepareRevision(liar.revision, liar.manifest, ctx()));
    expect(results.map((r) => r.state)).not.toContain('ready');
    expect(results.at(-1)).toEqual({ state: 'pending', reason: 'RUNTIME_STATUS_UNTRUSTED' });
    await api.delete('ServiceAccount', NS, agentObjectNames(liar.revision.agentId).serviceAccount);
  });

  it("the worker's wait on a starting gateway is a long-poll through the pod proxy: held while the status stays the same, ended by its next status", async () => {
    const { revision, manifest } = revisionOf({ preparingMs: 4_000 });
    const agentRef = { namespaceId: revision.namespaceId, agentId: revision.agentId };
    await driver.prepareRevision(revision, manifest, ctx());
    await waitFor(async () => ((await driver.describeRuntime(agentRef, revision.id)).phase === 'preparing' ? true : null), 15_000);
    // A prepare's look reads its status, still preparing, and the version it names.
    expect(await driver.prepareRevision(revision, manifest, ctx())).toMatchObject({ state: 'pending' });
    const waiting = driver.awaitStatusChange!(agentRef, revision.id, ctx());
    let ended = false;
    void waiting.finally(() => (ended = true));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ended).toBe(false);
    // Without a version the wait is a 20 s sleep; the runtime's next status (ready, about 4 s after its start) ends it well before.
    expect(await Promise.race([waiting.then(() => 'status changed'), new Promise((resolve) => setTimeout(resolve, 15_000, 'no long-poll'))])).toBe('status changed');
    expect((await driver.describeRuntime(agentRef, revision.id)).phase).toBe('ready');
    await api.delete('ServiceAccount', NS, agentObjectNames(revision.agentId).serviceAccount);
  });

  it('an image the cluster cannot pull fails with RUNTIME_IMAGE_UNAVAILABLE', async () => {
    const other = newDriver({ OCC_RUNTIME_IMAGE: 'occ-runtime:absent' });
    const { revision, manifest } = revisionOf({});
    expect(await prepareSettled(other, revision, manifest, 15_000)).toMatchObject({ state: 'failed', failure: { code: 'RUNTIME_IMAGE_UNAVAILABLE' } });
    await api.delete('ServiceAccount', NS, agentObjectNames(revision.agentId).serviceAccount);
  });

  it('an object the API server refuses (422) fails the prepare with COMPUTE_REQUEST_REJECTED naming the field, never a value', async () => {
    const { revision, manifest } = revisionOf({});
    const names = agentObjectNames(revision.agentId);
    // Someone else's Deployment under the Agent's name, with another selector (immutable: a replace cannot change it).
    await api.create('Deployment', NS, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: names.deployment, namespace: NS },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'other' } },
        template: { metadata: { labels: { app: 'other' } }, spec: { containers: [{ name: 'x', image: 'other:1' }] } },
      },
    });
    const result = await driver.prepareRevision(revision, manifest, ctx());
    expect(result).toMatchObject({ state: 'failed', failure: { code: 'COMPUTE_REQUEST_REJECTED' } });
    const message = (result as { failure: { message: string } }).failure.message;
    expect(message).toContain('422');
    expect(message).toContain(names.deployment);
    expect(message).not.toContain(CANARY);
    await api.delete('Deployment', NS, names.deployment);
    await api.delete('ServiceAccount', NS, names.serviceAccount);
  });

  it('a manifest larger than a ConfigMap holds fails with RUNTIME_MANIFEST_TOO_LARGE, and no gateway is created', async () => {
    const { revision, manifest } = revisionOf({});
    const big = { ...manifest, configuration: { ...manifest.configuration, values: { padding: 'x'.repeat(1024 * 1024) } } };
    expect(await driver.prepareRevision(revision, big, ctx())).toMatchObject({ state: 'failed', failure: { code: 'RUNTIME_MANIFEST_TOO_LARGE' } });
    expect(fake.objects('Deployment', NS).some((d) => d.metadata.name === agentObjectNames(revision.agentId).deployment)).toBe(false);
    await api.delete('ServiceAccount', NS, agentObjectNames(revision.agentId).serviceAccount);
  });

  it('a 409 Conflict on replace (a write between read and replace) is re-read and applied', async () => {
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'occ-conflict-probe', namespace: NS, labels: { a: '1' } }, data: { k: 'v1' } };
    await applyObject(api, object, ctx().signal);
    let replaces = 0;
    const racing = new Proxy(api, {
      get(target, key, receiver) {
        if (key !== 'replace') return Reflect.get(target, key, receiver);
        return async (kind: 'ConfigMap', namespace: string, body: object) => {
          // The first replace races another writer: the resourceVersion it carries is stale.
          if (replaces++ === 0) await target.mergePatch(kind, namespace, 'occ-conflict-probe', { metadata: { labels: { other: 'writer' } } });
          return target.replace(kind, namespace, body);
        };
      },
    });
    const applied = await applyObject(racing, { ...object, data: { k: 'v2' } }, ctx().signal);
    expect(replaces).toBe(2);
    expect(applied.data).toEqual({ k: 'v2' });
    await api.delete('ConfigMap', NS, 'occ-conflict-probe');
    // Invalid objects are not retried: the 422 surfaces with the fields the server named.
    const bad = applyObject(api, { ...object, metadata: { ...object.metadata, name: 'Not_A_Name' } }, ctx().signal);
    await expect(bad).rejects.toMatchObject({ status: 422, reason: 'Invalid' });
    await expect(bad).rejects.toBeInstanceOf(KubernetesApiError);
  });

  it('a Secret binding naming a reserved variable is refused before any host effect', () => {
    const { revision } = revisionOf({});
    const reserved = { ...revision, configuration: { ...revision.configuration, secretBindings: { NODE_OPTIONS: { secretId: 'sec_x' } } } } as AgentRevision;
    expect(() => driver.validateRevision(reserved)).toThrow(ComputeValidationError);
    expect(() => driver.validateRevision(reserved)).toThrow(/reserves/);
  });

  it('settings: bad values stop startup naming the variable, never its value', () => {
    const error = (overrides: Record<string, string | undefined>) => {
      try {
        kubernetesComputeSettings({ ...env(), ...overrides } as NodeJS.ProcessEnv);
      } catch (caught) {
        return caught as Error;
      }
      return null;
    };
    expect(error({ OCC_KUBERNETES_NAMESPACE: undefined })?.message).toMatch(/OCC_KUBERNETES_NAMESPACE is required/);
    expect(error({ OCC_RUNTIME_IMAGE: '' })?.message).toMatch(/OCC_RUNTIME_IMAGE is required/);
    const labels = error({ OCC_KUBERNETES_CONTROLLER_LABELS: 'secret-looking=value with space' });
    expect(labels).toBeInstanceOf(KubernetesSettingError);
    expect(labels?.message).toContain('OCC_KUBERNETES_CONTROLLER_LABELS');
    expect(labels?.message).not.toContain('value with space');
    expect(error({ OCC_RUNTIME_MEMORY: '0' })?.message).toContain('OCC_RUNTIME_MEMORY');
    expect(error({ KUBECONFIG: join(dir, 'missing') })?.message).toBe('KUBECONFIG cannot be read as a kubeconfig file.');
    // Local Codex marketplaces are directories of OCC's host: a pod has no way to them.
    expect(error({ OCC_CODEX_MARKETPLACES: '/srv/codex/team-a' })?.message).toMatch(/^OCC_CODEX_MARKETPLACES names directories of this host, which a pod cannot mount/);
    expect(error({ OCC_CODEX_MARKETPLACES: '' })).toBeNull();
    const ok = kubernetesComputeSettings(env({ OCC_KUBERNETES_CONTROLLER_LABELS: 'app=occ, tier=control' }));
    expect(ok.controller).toEqual({ kubernetesNamespace: NS, podLabels: { app: 'occ', tier: 'control' } });
    expect(ok.resources.limits).toEqual({ cpu: '1', memory: '2Gi' });
  });
});

describe("kubernetes ComputeDriver: the Agents' egress settings", () => {
  const CIDR_LIST = 'must be IPv4 or IPv6 CIDRs separated by commas (address/prefix, no host bits set, e.g. 203.0.113.0/24)';

  it('OCC_KUBERNETES_AGENT_EGRESS_EXCEPT / _ALLOW: comma-separated strict CIDRs, none by default; a bad one stops startup naming the variable and the item, never its value', () => {
    const read = (overrides: Record<string, string>) => () => kubernetesComputeSettings(env(overrides));
    expect(read({})().agentEgress).toEqual({ except: [], allow: [] });
    expect(read({ OCC_KUBERNETES_AGENT_EGRESS_EXCEPT: ' 203.0.113.0/24 , 2001:db8::/32', OCC_KUBERNETES_AGENT_EGRESS_ALLOW: '10.96.40.7/32' })().agentEgress).toEqual({
      except: ['203.0.113.0/24', '2001:db8::/32'],
      allow: ['10.96.40.7/32'],
    });
    const refused: [Record<string, string>, string][] = [
      [{ OCC_KUBERNETES_AGENT_EGRESS_EXCEPT: '203.0.113.0/24,198.51.100.77/24' }, `OCC_KUBERNETES_AGENT_EGRESS_EXCEPT ${CIDR_LIST}; item 2 is not.`],
      [{ OCC_KUBERNETES_AGENT_EGRESS_EXCEPT: '10.0.0.0/33' }, `OCC_KUBERNETES_AGENT_EGRESS_EXCEPT ${CIDR_LIST}; item 1 is not.`],
      [{ OCC_KUBERNETES_AGENT_EGRESS_EXCEPT: '::/0' }, 'OCC_KUBERNETES_AGENT_EGRESS_EXCEPT: item 1 is a /0, which would exclude the whole internet.'],
      [{ OCC_KUBERNETES_AGENT_EGRESS_ALLOW: '10.96.40.7/32,' }, `OCC_KUBERNETES_AGENT_EGRESS_ALLOW ${CIDR_LIST}; item 2 is not.`],
      [{ OCC_KUBERNETES_AGENT_EGRESS_ALLOW: 'fd00::/129' }, `OCC_KUBERNETES_AGENT_EGRESS_ALLOW ${CIDR_LIST}; item 1 is not.`],
      [{ OCC_KUBERNETES_AGENT_EGRESS_ALLOW: 'proxy.internal' }, `OCC_KUBERNETES_AGENT_EGRESS_ALLOW ${CIDR_LIST}; item 1 is not.`],
    ];
    for (const [overrides, message] of refused) {
      expect(read(overrides), message).toThrow(KubernetesSettingError);
      expect(read(overrides)).toThrow(message);
    }
  });

  it("the Agent's egress NetworkPolicy carries the operator's exceptions and one TCP 443 rule per allowed CIDR", async () => {
    const other = newDriver({ OCC_KUBERNETES_AGENT_EGRESS_EXCEPT: '203.0.113.0/24', OCC_KUBERNETES_AGENT_EGRESS_ALLOW: '10.96.40.7/32' });
    const { revision, manifest } = revisionOf({});
    const names = agentObjectNames(revision.agentId);
    await other.prepareRevision(revision, manifest, ctx());
    const policy = fake.objects('NetworkPolicy', NS).find((p) => p.metadata.name === names.networkPolicyEgress);
    const https = [{ protocol: 'TCP', port: 443 }];
    expect(policy.spec.egress.slice(0, 2)).toEqual([
      {
        to: [
          { ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8', '203.0.113.0/24'] } },
          { ipBlock: { cidr: '::/0', except: ['fc00::/7', 'fe80::/10', '::1/128'] } },
        ],
        ports: https,
      },
      { to: [{ ipBlock: { cidr: '10.96.40.7/32' } }], ports: https },
    ]);
    await other.close();
    await api.delete('ServiceAccount', NS, names.serviceAccount);
  });
});
