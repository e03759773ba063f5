import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activeRevisionId,
  deploy,
  effectsOf,
  newDeployTarget,
  scriptedByAgent,
  startExtraWorker,
  waitFor,
  waitTerminal,
  type DeployTarget,
} from '../../../../test-support/deploy-helpers.ts';
import { createScriptedCompute } from '../../../../test-support/scripted-compute.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, newPrincipal, uniqueName } from '../../../../test-support/world.ts';

/**
 * Admission happens with the worker down; access is then revoked; only then does a worker run.
 * It must re-check the original actor and the Agent's own principal before any compute effect.
 */
describe('the worker re-authorizes before any compute effect', () => {
  let t: TestController;
  const script = scriptedByAgent();
  const effects = script.compute.effects;
  beforeAll(async () => {
    t = await startTestController({ compute: script.compute, work: { maxAttempts: 3 } });
  });
  afterAll(async () => t?.close());

  /** A principal allowed to deploy `target`: agent deploy/read on the Namespace, read on its Configuration. */
  async function deployer(target: DeployTarget) {
    const p = await newPrincipal(t);
    const agentBinding = await grant(
      t,
      p.id,
      [
        { action: 'deploy', resourceKind: 'agent' },
        { action: 'read', resourceKind: 'agent' },
      ],
      { namespaceId: target.ns },
    );
    const cfgBinding = await grant(t, p.id, [{ action: 'read', resourceKind: 'configuration' }], { namespaceId: target.ns, resource: { kind: 'configuration', id: target.cfg } });
    return { ...p, agentBinding, cfgBinding };
  }
  async function deployAs(target: DeployTarget, key?: string): Promise<string> {
    const res = await deploy(t, target, key);
    expect(res.status, res.raw).toBe(202);
    return res.body.data.id;
  }
  const remove = async (url: string) => expect((await t.request({ method: 'DELETE', url })).status).toBe(204);
  /** Revision 1 deployed and active, then revision 2 admitted (a restart: nothing changed), both by `key`. */
  async function activeThenRedeploy(target: DeployTarget, key: string): Promise<{ one: string; two: string }> {
    const one = await deployAs(target, key);
    expect(await waitTerminal(t, target, one)).toMatchObject({ state: 'succeeded', active: true });
    const res = await t.request({ method: 'POST', url: `${target.url}/deploy`, body: { restart: true }, key });
    expect(res.status, res.raw).toBe(202);
    return { one, two: res.body.data.id };
  }

  it('(DESIGN §8) revoked deploy, read or secret:operate (actor or Agent) → AUTHORIZATION_DENIED, a deleted actor → ACTOR_REVOKED; no compute call for them', async () => {
    // Admitted while everyone still held their grants.
    const kept = await newDeployTarget(t);
    const keptBy = await deployer(kept);
    const keptRev = await deployAs(kept, keptBy.key);

    const noDeploy = await newDeployTarget(t);
    const noDeployBy = await deployer(noDeploy);
    const noDeployRev = await deployAs(noDeploy, noDeployBy.key);

    const noRead = await newDeployTarget(t);
    const noReadBy = await deployer(noRead);
    const noReadRev = await deployAs(noRead, noReadBy.key);

    const gone = await newDeployTarget(t);
    const goneBy = await deployer(gone);
    const goneRev = await deployAs(gone, goneBy.key);

    // The Agent's own principal loses operate on its harness auth Secret.
    const ns = t.defaultNamespaceId;
    const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'codex-pat-value' });
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
    const codex = await adminCreate(t, `/namespaces/${ns}/agents`, {
      name: uniqueName('a'),
      configurationId: cfg.id,
      harness: 'codex',
      harnessAuth: { method: 'codex_pat', secretId: secret.id },
    });
    const codexTarget: DeployTarget = { ns, cfg: cfg.id, agentId: codex.id, servicePrincipalId: codex.servicePrincipalId, url: `/namespaces/${ns}/agents/${codex.id}` };
    const agentSecretBinding = await grant(t, codex.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], {
      namespaceId: ns,
      resource: { kind: 'secret', id: secret.id },
    });
    const codexRev = await deployAs(codexTarget);

    // The deploying principal loses operate on a Secret its Configuration binds.
    const bound = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: 'bound-secret-value' });
    const boundCfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {}, secretBindings: { API_TOKEN: { secretId: bound.id } } });
    const boundAgent = await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('a'), configurationId: boundCfg.id, harness: 'openclaw' });
    const boundTarget: DeployTarget = {
      ns,
      cfg: boundCfg.id,
      agentId: boundAgent.id,
      servicePrincipalId: boundAgent.servicePrincipalId,
      url: `/namespaces/${ns}/agents/${boundAgent.id}`,
    };
    await grant(t, boundAgent.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: bound.id } });
    const boundBy = await deployer(boundTarget);
    const actorSecretBinding = await grant(t, boundBy.id, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: bound.id } });
    const boundRev = await deployAs(boundTarget, boundBy.key);

    // Revocations, all between admission and claim.
    await remove(`/iam/access-bindings/${noDeployBy.agentBinding}`);
    await remove(`/iam/access-bindings/${noReadBy.cfgBinding}`);
    await remove(`/principals/${goneBy.id}`);
    await remove(`/iam/access-bindings/${agentSecretBinding}`);
    await remove(`/iam/access-bindings/${actorSecretBinding}`);

    const worker = startExtraWorker(t, script.compute);
    try {
      expect(await waitTerminal(t, kept, keptRev)).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED' });
      const denied = await waitTerminal(t, noDeploy, noDeployRev);
      expect(denied).toMatchObject({ state: 'failed', reasonCode: 'AUTHORIZATION_DENIED', attempts: 1 });
      expect(denied.error).toEqual({ code: 'AUTHORIZATION_DENIED', message: expect.stringContaining('agent:deploy') });
      const unread = await waitTerminal(t, noRead, noReadRev);
      expect(unread).toMatchObject({ state: 'failed', reasonCode: 'AUTHORIZATION_DENIED', attempts: 1 });
      expect(unread.error.message).toContain('configuration:read');
      const revoked = await waitTerminal(t, gone, goneRev);
      expect(revoked).toMatchObject({ state: 'failed', reasonCode: 'ACTOR_REVOKED', attempts: 1 });
      expect(revoked.error.code).toBe('ACTOR_REVOKED');
      const agentDenied = await waitTerminal(t, codexTarget, codexRev);
      expect(agentDenied).toMatchObject({ state: 'failed', reasonCode: 'AUTHORIZATION_DENIED', attempts: 1 });
      expect(agentDenied.error.message).toMatch(/Agent's principal.*secret:operate/);
      expect(JSON.stringify(agentDenied)).not.toContain('codex-pat-value');
      const secretDenied = await waitTerminal(t, boundTarget, boundRev);
      expect(secretDenied).toMatchObject({ state: 'failed', reasonCode: 'AUTHORIZATION_DENIED', attempts: 1 });
      expect(secretDenied.error.message).toMatch(/deploying principal.*secret:operate/);
    } finally {
      await worker.stop();
    }
    // The only compute effects are those of the revision whose grants were kept.
    expect(effectsOf(effects, keptRev).map((e) => e.op)).toEqual(['prepare', 'activate']);
    for (const rev of [noDeployRev, noReadRev, goneRev, codexRev, boundRev]) expect(effectsOf(effects, rev), rev).toEqual([]);
    for (const target of [noDeploy, noRead, gone, codexTarget, boundTarget]) expect(await activeRevisionId(t, target)).toBeNull();
  });

  it('[P-1] a revision admitted for another ComputeDriver fails COMPUTE_DRIVER_MISMATCH on this worker without a compute call', async () => {
    const target = await newDeployTarget(t);
    const rev = await deployAs(target);
    const other = scriptedByAgent('another-compute');
    const worker = startExtraWorker(t, other.compute);
    try {
      const status = await waitTerminal(t, target, rev);
      expect(status).toMatchObject({ state: 'failed', reasonCode: 'COMPUTE_DRIVER_MISMATCH', attempts: 1 });
    } finally {
      await worker.stop();
    }
    expect(other.compute.effects).toEqual([]);
    expect(effectsOf(effects, rev)).toEqual([]);
    expect(await activeRevisionId(t, target)).toBeNull();
  });

  it('[P-1] a revision the ComputeDriver refuses at claim time fails INVALID_ADMITTED_REVISION without a compute call', async () => {
    const target = await newDeployTarget(t);
    const rev = await deployAs(target);
    // Same driver id, but it now refuses what it accepted at admission (e.g. an upgraded rule).
    const stricter = createScriptedCompute({ rejectRevision: (r) => (r.id === rev ? 'this target no longer runs plugin maps' : null) });
    const worker = startExtraWorker(t, stricter);
    try {
      expect(await waitTerminal(t, target, rev)).toMatchObject({ state: 'failed', reasonCode: 'INVALID_ADMITTED_REVISION', attempts: 1 });
    } finally {
      await worker.stop();
    }
    // Its start restored the other Agents' active revisions (recover-active.ts); nothing of this one.
    expect(stricter.effects.filter((e) => e.agentId === target.agentId)).toEqual([]);
  });

  it('[K-1][K-4] access revoked while a candidate converges: the next look is refused (AUTHORIZATION_DENIED), the candidate an earlier attempt started is stopped and the active revision restored, before the deploy fails', async () => {
    const target = await newDeployTarget(t);
    const by = await deployer(target);
    script.prepare.set(target.agentId, (revision) => (revision.revision === 2 ? { ready: false, pendingReason: 'RUNTIME_STARTING' } : {}));
    const worker = startExtraWorker(t, script.compute);
    try {
      const { one, two } = await activeThenRedeploy(target, by.key);
      await waitFor(
        'a convergence wait',
        async () => effectsOf(effects, two, 'prepare').length,
        (n) => n >= 2,
      );
      await remove(`/iam/access-bindings/${by.agentBinding}`);
      expect(await waitTerminal(t, target, two)).toMatchObject({ state: 'failed', reasonCode: 'AUTHORIZATION_DENIED', active: false });
      const mine = effects.filter((e) => e.agentId === target.agentId);
      const lastPrepare = mine.findLastIndex((e) => e.op === 'prepare');
      expect(mine[lastPrepare]?.revisionId).toBe(two);
      expect(mine.slice(lastPrepare + 1).map((e) => `${e.op}:${e.revisionId === one ? 1 : 2}:${e.outcome}`)).toEqual(['stop:2:ok', 'restore:1:ok']);
      expect(await activeRevisionId(t, target)).toBe(one);
    } finally {
      await worker.stop();
    }
  });

  it('[K-1][K-4] access revoked while a failed candidate waits for its retry: the retry is refused, and nothing is stopped (the driver stopped the failed candidate; the active revision was restored after its failure)', async () => {
    const target = await newDeployTarget(t);
    const by = await deployer(target);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    // rev2's first attempt fails (a retryable runtime failure) once the test has revoked the grant.
    script.prepare.set(target.agentId, (revision, call) =>
      revision.revision === 2 && call === 1 ? { until: held, runtimeFailure: { code: 'PLUGIN_SOURCE_UNREACHABLE', message: 'x' } } : {},
    );
    const worker = startExtraWorker(t, script.compute);
    try {
      const { one, two } = await activeThenRedeploy(target, by.key);
      await waitFor(
        'the first attempt',
        async () => effectsOf(effects, two, 'prepare').length,
        (n) => n === 1,
      );
      await remove(`/iam/access-bindings/${by.agentBinding}`);
      release();
      expect(await waitTerminal(t, target, two)).toMatchObject({ state: 'failed', reasonCode: 'AUTHORIZATION_DENIED', attempts: 2 });
      expect(effectsOf(effects, two).map((e) => e.op)).toEqual(['prepare']);
      // Restored once, after the failed attempt; the refusal restored nothing more.
      expect(effectsOf(effects, one).map((e) => e.op)).toEqual(['prepare', 'activate', 'restore']);
      expect(await activeRevisionId(t, target)).toBe(one);
    } finally {
      await worker.stop();
    }
  });
});
