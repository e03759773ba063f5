import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeStartDenied, type RevisionRef, type RuntimeStartAuthority } from '../../src/core/ports/runtime-start.ts';
import { createRuntimeStartAuthority } from '../../src/core/use-cases/runtime-start.ts';
import { admit, newDeployTarget, scriptedByAgent, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, uniqueName } from '../../../../test-support/world.ts';

/**
 * What a ComputeDriver is told at every runtime start: which revisions the database says are
 * active, and the Secret environment of one start, re-authorized each time.
 */
describe('the runtime start authority', () => {
  let t: TestController;
  let authority: RuntimeStartAuthority;
  const script = scriptedByAgent();
  beforeAll(async () => {
    t = await startTestController({ compute: script.compute, worker: { leaseMs: 5_000, pollMs: 25, convergencePollMs: 50 } });
    authority = createRuntimeStartAuthority({ state: t.controller.deps.state, secrets: t.controller.deps.secrets });
  });
  afterAll(async () => t?.close());

  /** An active Agent whose Configuration binds PROVIDER_API_KEY to a Secret holding `value`. */
  async function activeAgentWithSecret(value: string) {
    const ns = t.defaultNamespaceId;
    const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value });
    const target: DeployTarget = await newDeployTarget(t);
    const patched = await t.request({
      method: 'PATCH',
      url: `/namespaces/${ns}/configurations/${target.cfg}`,
      body: { secretBindings: { PROVIDER_API_KEY: { secretId: secret.id } } },
    });
    expect(patched.status, patched.raw).toBe(200);
    const bindingId = await grant(t, target.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: secret.id } });
    const revision = await admit(t, target);
    expect((await waitTerminal(t, target, revision.id)).state).toBe('succeeded');
    const ref: RevisionRef = { namespaceId: ns, agentId: target.agentId, revisionId: revision.id };
    return { ns, secret, target, ref, bindingId };
  }
  /** A deployed Codex Agent whose codex_pat Secret holds `value` (its Configuration binds nothing). */
  async function activeCodexAgent(value: string) {
    const ns = t.defaultNamespaceId;
    const pat = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('pat'), value });
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, {
      name: uniqueName('a'),
      configurationId: cfg.id,
      harness: 'codex',
      harnessAuth: { method: 'codex_pat', secretId: pat.id },
    });
    const target: DeployTarget = { ns, cfg: cfg.id, agentId: agent.id, servicePrincipalId: agent.servicePrincipalId, url: `/namespaces/${ns}/agents/${agent.id}` };
    const bindingId = await grant(t, target.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: pat.id } });
    const revision = await admit(t, target);
    expect(revision).toMatchObject({ harness: 'codex', harnessAuth: { method: 'codex_pat', secretId: pat.id } });
    expect((await waitTerminal(t, target, revision.id)).state).toBe('succeeded');
    const ref: RevisionRef = { namespaceId: ns, agentId: target.agentId, revisionId: revision.id };
    return { ns, pat, target, ref, bindingId };
  }
  const startOf = (ref: RevisionRef) =>
    authority.withStartEnvironment(ref, async (secrets) => ({ variables: { ...secrets.variables }, harnessAuth: secrets.harnessAuth && { ...secrets.harnessAuth } }));
  const environmentOf = async (ref: RevisionRef) => {
    const secrets = await startOf(ref);
    expect(secrets.harnessAuth).toBeNull();
    return secrets.variables;
  };
  async function denial(ref: RevisionRef): Promise<RuntimeStartDenied> {
    const error = await environmentOf(ref).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RuntimeStartDenied);
    return error as RuntimeStartDenied;
  }

  it('delivers each bound Secret as its variable, read fresh at every start (a rotation reaches the next start)', async () => {
    const { ref, ns, secret } = await activeAgentWithSecret('canary-first-value');
    expect(await environmentOf(ref)).toEqual({ PROVIDER_API_KEY: 'canary-first-value' });
    expect((await t.request({ method: 'PATCH', url: `/namespaces/${ns}/secrets/${secret.id}`, body: { value: 'canary-rotated-value' } })).status).toBe(200);
    expect(await environmentOf(ref)).toEqual({ PROVIDER_API_KEY: 'canary-rotated-value' });
  });

  it("refuses the next start once the Agent's principal loses secret:operate, naming the variable and never the value", async () => {
    const { ref, bindingId } = await activeAgentWithSecret('canary-revoked-value');
    expect((await t.request({ method: 'DELETE', url: `/iam/access-bindings/${bindingId}` })).status).toBe(204);
    const denied = await denial(ref);
    expect(denied.code).toBe('SECRET_ACCESS_REVOKED');
    expect(denied.variable).toBe('PROVIDER_API_KEY');
    expect(`${denied.message} ${JSON.stringify(denied)}`).not.toContain('canary-revoked-value');
  });

  it('refuses the next start once a bound Secret is deleted', async () => {
    const { ref, ns, secret, target } = await activeAgentWithSecret('canary-deleted-value');
    // The live Configuration lets go of the Secret; the admitted revision still binds it.
    expect((await t.request({ method: 'PATCH', url: `/namespaces/${ns}/configurations/${target.cfg}`, body: { secretBindings: {} } })).status).toBe(200);
    const removed = await t.request({ method: 'DELETE', url: `/namespaces/${ns}/secrets/${secret.id}` });
    expect(removed.status, removed.raw).toBe(204);
    expect((await denial(ref)).code).toBe('SECRET_UNAVAILABLE');
  });

  it("delivers the Agent's codex_pat apart from the bindings (never as a variable), read fresh at every start", async () => {
    const { ref, ns, pat } = await activeCodexAgent('canary-pat-first');
    expect(await startOf(ref)).toEqual({ variables: {}, harnessAuth: { method: 'codex_pat', value: 'canary-pat-first' } });
    expect((await t.request({ method: 'PATCH', url: `/namespaces/${ns}/secrets/${pat.id}`, body: { value: 'canary-pat-rotated' } })).status).toBe(200);
    expect(await startOf(ref)).toEqual({ variables: {}, harnessAuth: { method: 'codex_pat', value: 'canary-pat-rotated' } });
  });

  it("refuses the next start once the Agent's principal loses secret:operate on its codex_pat (SECRET_ACCESS_REVOKED, OCC_RUNTIME_CODEX_PAT)", async () => {
    const { ref, bindingId } = await activeCodexAgent('canary-pat-revoked');
    expect((await t.request({ method: 'DELETE', url: `/iam/access-bindings/${bindingId}` })).status).toBe(204);
    const denied = await startOf(ref).then(
      () => null,
      (e: unknown) => e,
    );
    expect(denied).toBeInstanceOf(RuntimeStartDenied);
    expect(denied).toMatchObject({ code: 'SECRET_ACCESS_REVOKED', variable: 'OCC_RUNTIME_CODEX_PAT' });
    expect(`${(denied as Error).message} ${JSON.stringify(denied)}`).not.toContain('canary-pat-revoked');
  });

  it('refuses the next start once the codex_pat Secret is deleted (SECRET_UNAVAILABLE)', async () => {
    const { ref, ns, pat, target } = await activeCodexAgent('canary-pat-deleted');
    // The Agent lets go of the Secret; the admitted revision still uses it.
    expect((await t.request({ method: 'PATCH', url: target.url, body: { harnessAuth: null } })).status).toBe(200);
    const removed = await t.request({ method: 'DELETE', url: `/namespaces/${ns}/secrets/${pat.id}` });
    expect(removed.status, removed.raw).toBe(204);
    const denied = await startOf(ref).then(
      () => null,
      (e: unknown) => e,
    );
    expect(denied).toMatchObject({ code: 'SECRET_UNAVAILABLE', variable: 'OCC_RUNTIME_CODEX_PAT' });
  });

  it('refuses a revision that does not exist', async () => {
    const { ref } = await activeAgentWithSecret('v');
    expect((await denial({ ...ref, revisionId: 'rev_00000000-0000-4000-8000-000000000000' })).code).toBe('REVISION_UNAVAILABLE');
  });
});
