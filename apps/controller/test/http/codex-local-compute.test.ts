import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalComputeDriver } from '../../src/drivers/compute/local/index.ts';
import { revisionPaths } from '../../src/drivers/compute/local/layout.ts';
import { admit, deploy, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { filesUnder, sha256Of, standInReceivedSecrets, tempRoot, standInLocalCompute } from '../../../../test-support/stand-in-runtime.ts';
import { startTestController, type TestController, type TestResponse } from '../../../../test-support/test-controller.ts';
import { adminCreate, grant, uniqueName } from '../../../../test-support/world.ts';

/**
 * A Codex Agent (`harness: codex`, its `codex_pat` bound) deployed through the API on the local
 * ComputeDriver, whose runtime is the stand-in (the real runtime's Codex path is tested in
 * apps/runtime). Its codex_pat reaches the runtime at every start as OCC_RUNTIME_CODEX_PAT and
 * nowhere else; the start is re-authorized each time.
 */
const PAT = `canary-codex-pat-${randomBytes(12).toString('hex')}`;
/** The canary as a careless implementation would store it: plain, base64, base64url, hex. */
const encodings = [PAT, Buffer.from(PAT).toString('base64'), Buffer.from(PAT).toString('base64url'), Buffer.from(PAT).toString('hex')];

describe('a Codex Agent on the local ComputeDriver, through the API', () => {
  let t: TestController;
  let driver: LocalComputeDriver;
  const root = tempRoot();
  const responses: TestResponse[] = [];
  /** The driver's own events (the composition sends them to OCC's log). */
  const events: string[] = [];
  let target: DeployTarget;
  let patId: string;
  let operateBinding: string;
  let revisionId: string;
  const call = async (options: Parameters<TestController['request']>[0]) => {
    const res = await t.request(options);
    responses.push(res);
    return res;
  };
  const view = async () => (await call({ method: 'GET', url: `${target.url}/deployments/${revisionId}/runtime` })).body.data;
  /** SIGKILLs the revision's newest runtime process group (as a crash would). */
  async function killRuntime(): Promise<void> {
    const lines = (await call({ method: 'GET', url: `${target.url}/deployments/${revisionId}/runtime/logs?tail=1000` })).body.data.lines as string[];
    process.kill(
      -Number(
        lines
          .map((l) => /runtime started \(pid (\d+)\)/.exec(l)?.[1])
          .filter(Boolean)
          .at(-1),
      ),
      'SIGKILL',
    );
  }

  beforeAll(async () => {
    driver = standInLocalCompute(root, {
      backoff: { baseMs: 100, capMs: 300, resetAfterMs: 60_000 },
      log: (event, fields) => events.push(JSON.stringify([event, fields])),
    });
    t = await startTestController({ compute: driver, worker: { leaseMs: 10_000, pollMs: 25, convergencePollMs: 50 } });
    const ns = t.defaultNamespaceId;
    patId = (await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('pat'), value: PAT })).id;
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: { standIn: {} } });
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, {
      name: uniqueName('codex'),
      configurationId: cfg.id,
      harness: 'codex',
      harnessAuth: { method: 'codex_pat', secretId: patId },
    });
    target = { ns, cfg: cfg.id, agentId: agent.id, servicePrincipalId: agent.servicePrincipalId, url: `/namespaces/${ns}/agents/${agent.id}` };
    operateBinding = await grant(t, agent.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: ns, resource: { kind: 'secret', id: patId } });
    revisionId = (await admit(t, target)).id;
  });
  afterAll(async () => {
    await t?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('[P-1] deploys like an OpenClaw Agent: succeeded, its runtime got the codex_pat as OCC_RUNTIME_CODEX_PAT, the manifest names the variable only', async () => {
    expect(await waitTerminal(t, target, revisionId)).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true, warnings: [] });
    const revision = (await call({ method: 'GET', url: `${target.url}/revisions/${revisionId}` })).body.data;
    expect(revision).toMatchObject({ harness: 'codex', harnessAuth: { method: 'codex_pat', secretId: patId }, pluginDriverId: 'codex-hosted', computeDriverId: 'local' });

    const ref = { agentId: target.agentId, id: revisionId };
    expect(await standInReceivedSecrets(root, ref)).toEqual({ OCC_RUNTIME_CODEX_PAT: sha256Of(PAT) });
    const manifest = JSON.parse(readFileSync(revisionPaths(root, target.agentId, revisionId).manifest, 'utf8'));
    expect(manifest).toMatchObject({ harness: 'codex', harnessAuth: { method: 'codex_pat', environment: 'OCC_RUNTIME_CODEX_PAT' }, secretEnvironment: [] });
    // The live view lists the Configuration's variables; the codex_pat is implied by any start of a Codex revision with one.
    expect(await view()).toMatchObject({ running: true, ready: true, deliveredSecrets: [], lastFailureCode: null });
  });

  it('a Configuration binding named OCC_RUNTIME_CODEX_PAT is refused at deploy (400: SECRET_VARIABLE_RESERVED)', async () => {
    const other = await adminCreate(t, `/namespaces/${target.ns}/secrets`, { name: uniqueName('s'), value: 'canary-impostor-value' });
    const cfg = await adminCreate(t, `/namespaces/${target.ns}/configurations`, {
      name: uniqueName('c'),
      values: { standIn: {} },
      secretBindings: { OCC_RUNTIME_CODEX_PAT: { secretId: other.id } },
    });
    const agent = await adminCreate(t, `/namespaces/${target.ns}/agents`, {
      name: uniqueName('codex'),
      configurationId: cfg.id,
      harness: 'codex',
      harnessAuth: { method: 'codex_pat', secretId: other.id },
    });
    await grant(t, agent.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: target.ns });
    const refused = await deploy(t, {
      ns: target.ns,
      cfg: cfg.id,
      agentId: agent.id,
      servicePrincipalId: agent.servicePrincipalId,
      url: `/namespaces/${target.ns}/agents/${agent.id}`,
    });
    responses.push(refused);
    expect(refused.status, refused.raw).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(refused.body.error.message).toContain('reserves');
    expect(refused.body.error.message).toContain('OCC_RUNTIME_CODEX_PAT');
    expect((await call({ method: 'GET', url: `/namespaces/${target.ns}/agents/${agent.id}/revisions` })).body.data.items).toEqual([]);
  });

  it("revoking the Agent's grant on its codex_pat denies the next start (SECRET_ACCESS_REVOKED); a restored grant lets it back; a deleted Secret denies it (SECRET_UNAVAILABLE)", async () => {
    const before = await view();
    expect((await call({ method: 'DELETE', url: `/iam/access-bindings/${operateBinding}` })).status).toBe(204);
    await killRuntime();
    expect(await waitFor('a refused restart', view, (d) => d.lastFailureCode === 'SECRET_ACCESS_REVOKED', 15_000)).toMatchObject({ running: false, ready: false });

    await grant(t, target.servicePrincipalId, [{ action: 'operate', resourceKind: 'secret' }], { namespaceId: target.ns, resource: { kind: 'secret', id: patId } });
    const back = await waitFor('the runtime to come back', view, (d) => d.ready && d.startupId !== before.startupId, 15_000);
    expect(back).toMatchObject({ running: true, lastFailureCode: null });

    // The Agent lets go of the Secret so it can be deleted; the running revision still uses it.
    expect((await call({ method: 'PATCH', url: target.url, body: { harnessAuth: null } })).status).toBe(200);
    const removed = await call({ method: 'DELETE', url: `/namespaces/${target.ns}/secrets/${patId}` });
    expect(removed.status, removed.raw).toBe(204);
    await killRuntime();
    expect(await waitFor('a refused restart', view, (d) => d.lastFailureCode === 'SECRET_UNAVAILABLE', 15_000)).toMatchObject({ running: false, ready: false });
  });

  it('the canary codex_pat is in no log line, no manifest or other file, no status, no audit event and no API response', async () => {
    const logs = await call({ method: 'GET', url: `${target.url}/deployments/${revisionId}/runtime/logs?tail=1000` });
    expect(logs.status).toBe(200);
    await call({ method: 'GET', url: `${target.url}/deployments/${revisionId}` });
    await call({ method: 'GET', url: `${target.url}/revisions` });
    await call({ method: 'GET', url: target.url });
    const audit = (await t.database.query<{ t: string }>('SELECT row_to_json(a)::text AS t FROM audit_events a')).rows.map((r) => r.t);
    expect(audit.length).toBeGreaterThan(0);

    const places: [string, string][] = [
      ...responses.map((r, i): [string, string] => [`response ${i}`, `${JSON.stringify(r.headers)}\n${r.raw}`]),
      ...t.logs.map((line, i): [string, string] => [`controller log ${i}`, line]),
      ...events.map((event, i): [string, string] => [`compute event ${i}`, event]),
      ...audit.map((row, i): [string, string] => [`audit event ${i}`, row]),
      ...filesUnder(root).map((file): [string, string] => [file, readFileSync(file).toString('latin1')]),
    ];
    expect(places.some(([where]) => where.endsWith('manifest.json'))).toBe(true);
    expect(events.some((e) => e.includes('OCC_RUNTIME_CODEX_PAT'))).toBe(true);
    for (const [where, text] of places) for (const encoded of encodings) expect(text.includes(encoded), where).toBe(false);
  });
});
