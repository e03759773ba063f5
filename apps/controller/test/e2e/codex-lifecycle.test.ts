import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexHostedDiscoveryOptionsFromEnv } from '../../src/drivers/plugin/codex-hosted/index.ts';
import { createHostedDiscovery } from '../../src/drivers/plugin/codex-hosted/hosted-catalog-client.ts';
import { activeRevisionId, admit, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { startE2E, type E2E } from '../../../../test-support/e2e-local.ts';
import { createCodexAgent, startCodexBackends, type CodexBackends } from '../../../../test-support/codex-agent-world.ts';
import { fakePluginItem, type FakeHostedCatalog } from '../../../../test-support/fake-hosted-catalog.ts';
import { firstEventAt, localComputeRoot } from '../../../../test-support/local-gateway.ts';
import { execThroughCodexTurn, sendMessage } from '../../../../test-support/scripted-agent-turn.ts';
import type { ScriptedResponsesServer } from '../../../../test-support/scripted-responses-server.ts';
import { eventShape, parseSse } from '../../../../test-support/sse-events.ts';
import type { TestController, TestResponse } from '../../../../test-support/test-controller.ts';
import { adminCreate, uniqueName } from '../../../../test-support/world.ts';

// A Codex Agent through the HTTP API on the real local ComputeDriver: real runtime processes, the
// real `codex app-server` (plugins from the local marketplace fixture) and the real OpenClaw gateway
// with the pinned Codex harness. The hosted service (catalog and identity) is the local HTTPS fake
// behind the Installation's OCC_CODEX_CATALOG_URL / OCC_CODEX_IDENTITY_URL: discovery and every
// runtime talk to it, so the test sees which bearer the app-server presents. The model behind
// Codex is the scripted Responses API server (HTTPS) behind OCC_CODEX_MODEL_URL
// (test-support/codex-agent-world.ts starts both and names the settings). One Agent, three
// revisions: two succeed (the second answers a message through Codex), the third fails before its
// pointer moves.
const GOOD = 'codex:good@occ-fixtures';
const REJECTED = 'codex:rejected@occ-fixtures';
const MISSING = 'codex:missing@occ-fixtures';
const MARKETPLACE = fileURLToPath(new URL('../../../../test-support/codex-marketplace', import.meta.url));
const PAT = `at-canary-${randomBytes(16).toString('hex')}`;
/** Planted as OCC's own keys in the data directory: an Agent that reads them has broken out. */
const KEY_CANARY = `occ-key-${randomBytes(12).toString('hex')}`;
/** The canary as a careless implementation would store it: plain, base64, base64url, hex. */
const ENCODINGS = [PAT, Buffer.from(PAT).toString('base64'), Buffer.from(PAT).toString('base64url'), Buffer.from(PAT).toString('hex')];
// A Codex Agent's first deploy installs its harness plugin into the Agent's state too (≈ 25 s alone, minutes in a loaded suite).
const DEPLOY_MS = 420_000;

let backends: CodexBackends;
let hosted: FakeHostedCatalog;
let model: ScriptedResponsesServer;
let e2e: E2E;
let target: DeployTarget;
let patId: string;
const revisions: string[] = [];
/** Every API answer of this file, for the leak check. */
const responses: TestResponse[] = [];

async function call(options: Parameters<TestController['request']>[0]): Promise<TestResponse> {
  const res = await e2e.t.request(options);
  responses.push(res);
  return res;
}

beforeAll(async () => {
  backends = await startCodexBackends({ pat: PAT, accountId: 'acct-e2e' });
  ({ hosted, model } = backends);
  hosted.plugins.push(fakePluginItem('linear'));
  const env = { OCC_CODEX_MARKETPLACES: MARKETPLACE, ...backends.localInstallationEnv };
  e2e = await startE2E({ env, work: { maxAttempts: 2 }, discovery: { codex: createHostedDiscovery(codexHostedDiscoveryOptionsFromEnv(env)) } });
  writeFileSync(join(e2e.dataDir, 'admin-api-key'), `${KEY_CANARY}-admin\n`, { mode: 0o600 });
  writeFileSync(join(e2e.dataDir, 'secret-key'), `${KEY_CANARY}-sealing\n`, { mode: 0o600 });
  const ns = (await adminCreate(e2e.t, '/namespaces', { name: uniqueName('codex-ns') })).id;
  const created = await createCodexAgent((url, body) => adminCreate(e2e.t, url, body), ns, {
    pat: PAT,
    plugins: { [GOOD]: { enabled: true }, [REJECTED]: { enabled: true } },
  });
  patId = created.secretId;
  const { agent } = created;
  target = { ns, cfg: created.configurationId, agentId: agent.id, servicePrincipalId: agent.servicePrincipalId, url: `/namespaces/${ns}/agents/${agent.id}` };
});

afterAll(async () => {
  await e2e?.close();
  await backends?.close();
});

async function deployAndSettle(): Promise<{ id: string; status: any }> {
  const rev = await admit(e2e.t, target);
  const started = Date.now();
  const status = await waitTerminal(e2e.t, target, rev.id, DEPLOY_MS);
  console.log(`codex deploy ${Object.keys(rev.plugins).join(', ')}: ${status.state} after ${Date.now() - started} ms`);
  revisions.push(rev.id);
  return { id: rev.id, status };
}

const runtimeView = async (revisionId: string) => (await call({ method: 'GET', url: `${target.url}/deployments/${revisionId}/runtime` })).body.data;
const whoamis = () => hosted.requests.filter((r) => r.path === '/api/accounts/v1/user-auth-credential/whoami');

describe('a Codex Agent on the local ComputeDriver, through the HTTP API', () => {
  it("[D-2][D-4] its catalog is discovered from the Installation's hosted service with its bound codex_pat", async () => {
    const page = await call({ method: 'POST', url: `${target.url}/plugins`, body: {} });
    expect(page.status, page.raw).toBe(200);
    expect(page.body.data.plugins.map((entry: { remoteId?: string }) => entry.remoteId)).toEqual(['plugin_asdk_app_linear']);
    expect(whoamis().map((r) => r.headers.authorization)).toEqual([`Bearer ${PAT}`]);
  });

  it('[O-1][A-1][P-1][X-1][X-8][W-1][K-5][K-8] the first deploy succeeds: the good plugin installed, the rejected one a warning, the app-server authenticated with the codex_pat at the same hosted service', async () => {
    const discoveryCalls = whoamis().length;
    const hostedCalls = hosted.requests.length;
    const { id, status } = await deployAndSettle();
    expect(status).toMatchObject({
      revisionId: id,
      state: 'succeeded',
      reasonCode: 'REVISION_ACTIVATED',
      active: true,
      error: null,
      warnings: [{ pluginId: REJECTED, code: 'PLUGIN_INSTALL_FAILED' }],
    });
    expect(await activeRevisionId(e2e.t, target)).toBe(id);
    const revision = (await call({ method: 'GET', url: `${target.url}/revisions/${id}` })).body.data;
    expect(revision).toMatchObject({ harness: 'codex', harnessAuth: { method: 'codex_pat', secretId: patId }, pluginDriverId: 'codex-hosted', computeDriverId: 'local' });

    // The live view: the runtime of this revision is ready now.
    expect(await runtimeView(id)).toMatchObject({ revisionId: id, running: true, phase: 'ready', ready: true, restarts: 0, lastFailureCode: null });

    // The gateway bridge: one entry per selection, the rejected one disabled.
    expect(await e2e.configGet(target, id, 'plugins.entries.codex.config.codexPlugins')).toMatchObject({
      enabled: true,
      allow_all_plugins: false,
      plugins: {
        'good@occ-fixtures': expect.objectContaining({ enabled: true, marketplaceName: 'occ-fixtures', pluginName: 'good' }),
        'rejected@occ-fixtures': expect.objectContaining({ enabled: false, marketplaceName: 'occ-fixtures', pluginName: 'rejected' }),
      },
    });

    // The dedicated app-server asked the Installation's identity service (the fake, over HTTPS
    // trusted through OCC_RUNTIME_CA_FILE) who the codex_pat belongs to.
    const fromRuntime = await waitFor(
      'the app-server calling whoami',
      async () => whoamis().slice(discoveryCalls),
      (seen) => seen.length > 0,
      30_000,
      200,
    );
    expect(new Set(fromRuntime.map((r) => r.headers.authorization))).toEqual(new Set([`Bearer ${PAT}`]));
    // Codex's own client (discovery sends no user agent).
    expect(fromRuntime.map((r) => r.headers['user-agent'])).toContainEqual(expect.stringMatching(/^codex_cli_rs\//));
    // Every hosted call the Agent's Codex made went to the Installation's service with the codex_pat:
    // the Enterprise workspace's managed policies among them (chatgpt_base_url), no product analytics.
    const fromAgent = hosted.requests.slice(hostedCalls);
    expect(new Set(fromAgent.map((r) => r.headers.authorization))).toEqual(new Set([`Bearer ${PAT}`]));
    expect(fromAgent.map((r) => `${r.method} ${r.path}`)).toContain('GET /backend-api/wham/config/bundle');
    expect(fromAgent.filter((r) => r.path.includes('analytics'))).toEqual([]);
    const runtimeEvents = e2e.events(target, id);
    expect(runtimeEvents.filter((e) => e.event === 'gateway.started')).toHaveLength(1);
    // The harness plugin: an npm install in the Agent's state, inside the sandbox, from the set-up cache.
    expect(runtimeEvents.filter((e) => e.event === 'codex.harness.installed')).toHaveLength(1);
    // A new Agent's start (apps/runtime/README.md, "The Codex harness"): the harness installs while
    // the first peer prepares, and ONE OpenClaw process (a cold load each) serves the harness's
    // install, its inspection and the gateway's configuration check.
    expect(firstEventAt(runtimeEvents, 'codex.peer.started')).toBeLessThan(firstEventAt(runtimeEvents, 'codex.harness.installed'));
    const untilGateway = runtimeEvents.slice(
      0,
      runtimeEvents.findIndex((e) => e.event === 'gateway.started'),
    );
    expect(untilGateway.filter((e) => e.event === 'openclaw.session.started')).toHaveLength(1);

    // The deployment's events are the runtime's typed progress (its status, as the worker stored
    // it): the Codex steps, each install by selection key with its result, the gateway last.
    const stream = parseSse((await call({ method: 'GET', url: `${target.url}/deployments/${id}/events` })).raw);
    const events = stream.map(eventShape);
    const steps = events.filter((shape) => shape.startsWith('step '));
    expect(events.slice(0, 2)).toEqual(['admitted', 'claimed 1']);
    expect(steps[0]).toBe('step read-config');
    expect(stream.filter((e) => e.event === 'step' && e.data.pluginId !== undefined).map((e) => `${e.data.pluginId} ${e.data.result}`)).toEqual([
      `${GOOD} done`,
      `${REJECTED} rejected`,
    ]);
    expect(steps.at(-1)).toBe('step gateway');
    expect(events.at(-1)).toBe('succeeded REVISION_ACTIVATED');
  });

  it('[P-6][P-7][K-3][K-4][K-5] a second revision (the rejected selection dropped) replaces the first: succeeded without warnings, the pointer moved, the harness install kept', async () => {
    const [rev1] = revisions;
    const patched = await call({ method: 'PATCH', url: target.url, body: { plugins: { [GOOD]: { enabled: true } } } });
    expect(patched.status, patched.raw).toBe(200);
    const { id, status } = await deployAndSettle();
    expect(status).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true, error: null, warnings: [] });
    expect(await activeRevisionId(e2e.t, target)).toBe(id);
    expect(await runtimeView(id)).toMatchObject({ running: true, phase: 'ready', ready: true });
    // The Agent's state carries the harness install over: kept, not installed again ([P-7]).
    expect(e2e.events(target, id).filter((e) => e.event === 'codex.harness.kept')).toHaveLength(1);
    // Recreate: the first revision's runtime is gone, the revision stays stored.
    expect(await runtimeView(rev1!)).toMatchObject({ running: false, ready: false });
    expect((await call({ method: 'GET', url: `${target.url}/deployments/${rev1}` })).body.data).toMatchObject({ state: 'succeeded', active: false });
  });

  it('[X-1][G-6][K-7] a message to the deployed Codex Agent is answered by Codex: the model got the turn from Codex, with the codex_pat as its bearer, and the reply reached the caller', async () => {
    const gateway = e2e.gateway(target, revisions[1]!);
    const reply = `codex says ${randomBytes(4).toString('hex')}`;
    model.enqueue({ kind: 'text', text: reply });
    const started = Date.now();
    const answer = await sendMessage(gateway, 'Hello from the e2e test', 240_000);
    console.log(`codex turn through OCC's deployed Agent: ${Date.now() - started} ms`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ choices: [{ message: { role: 'assistant', content: expect.stringContaining(reply) } }] });
    const [turn] = model.turns();
    // Codex's Responses client (its version header, the WebSocket beta), signed in with the codex_pat.
    expect(turn).toMatchObject({ transport: 'websocket', path: '/v1/responses', body: { model: 'gpt-5.5' } });
    expect(turn!.headers.version).toBe('0.154.0');
    expect(turn!.headers['openai-beta']).toMatch(/^responses_websockets=/);
    expect(turn!.headers.authorization).toBe(`Bearer ${PAT}`);
    expect(turn!.headers['chatgpt-account-id']).toBe('acct-e2e');
    expect(JSON.stringify(turn!.body.input)).toContain('Hello from the e2e test');
  });

  it("[P-7] attacked through its turn: the exec tool Codex is offered (OpenClaw's, bridged) reaches none of OCC's keys and sees no other Agent; the codex_pat is not in its environment", async () => {
    const gateway = e2e.gateway(target, revisions[1]!);
    const localRoot = localComputeRoot(e2e.dataDir);
    // Where Codex offers `exec`: a function of its own or inside a namespace (the bridge decides),
    // read from a turn (a first message when this test runs alone).
    if (model.turns().length === 0) {
      model.enqueue({ kind: 'text', text: 'hello' });
      expect((await sendMessage(gateway, 'Hello', 240_000)).status).toBe(200);
    }
    const command = `id -u; ls -la ${e2e.dataDir} ${localRoot}/agents 2>&1; cat ${e2e.dataDir}/admin-api-key ${e2e.dataDir}/secret-key 2>&1; env | grep -c at-canary; echo end-of-probe`;
    const shell = await execThroughCodexTurn(model, gateway, command);
    expect(shell).toContain('end-of-probe');
    expect(shell).not.toContain(KEY_CANARY);
    expect(shell).not.toContain(PAT);
    expect(shell).toMatch(/admin-api-key: No such file or directory/);
    // Its own uid (not root, not OCC's); in the data directory it sees only the path down to its own Agent.
    expect(shell).toMatch(/^[1-9][0-9]{6}$/m);
    expect(shell).not.toMatch(/ (admin-api-key|secret-key|pgdata|driver-key)$/m);
    expect(shell).toMatch(new RegExp(` ${target.agentId}$`, 'm'));
    expect(shell).toMatch(/^0$/m); // no environment variable holds the codex_pat
  });

  it("[K-1][K-4][W-2] a third revision selecting a plugin in no marketplace fails with the runtime's code; the pointer stays on the second", async () => {
    const rev2 = revisions[1]!;
    const patched = await call({ method: 'PATCH', url: target.url, body: { plugins: { [GOOD]: { enabled: true }, [MISSING]: { enabled: true } } } });
    expect(patched.status, patched.raw).toBe(200);
    const { id, status } = await deployAndSettle();
    expect(status).toMatchObject({
      state: 'failed',
      active: false,
      warnings: [],
      error: { code: 'PLUGIN_NOT_IN_CATALOG', message: 'The runtime did not start (PLUGIN_NOT_IN_CATALOG).' },
    });
    // The pointer never moved; the failed runtime was stopped before any gateway started.
    expect(await activeRevisionId(e2e.t, target)).toBe(rev2);
    expect(await runtimeView(id)).toMatchObject({ running: false, ready: false });
    expect(e2e.events(target, id).filter((e) => e.event === 'gateway.started')).toEqual([]);
    // The second revision's runtime (stopped for the candidate: Recreate) is started again.
    await waitFor(
      'the second revision running again',
      () => runtimeView(rev2),
      (view) => view.running,
      30_000,
      200,
    );
    const logs = await call({ method: 'GET', url: `${target.url}/deployments/${id}/runtime/logs?tail=50` });
    expect(logs.status).toBe(200);
    expect(logs.body.data.lines.join('\n')).toContain('PLUGIN_NOT_IN_CATALOG');
  });

  it('[P-7] the canary codex_pat is in no API response, no log (runtime logs API included), no audit event and no file under the data directory', async () => {
    for (const id of revisions) {
      const logs = await call({ method: 'GET', url: `${target.url}/deployments/${id}/runtime/logs?tail=1000` });
      expect(logs.status).toBe(200);
      expect(logs.body.data.lines.length).toBeGreaterThan(0);
      await call({ method: 'GET', url: `${target.url}/deployments/${id}` });
    }
    await call({ method: 'GET', url: `${target.url}/revisions` });
    await call({ method: 'GET', url: target.url });
    await call({ method: 'GET', url: `/namespaces/${target.ns}/secrets/${patId}` });
    const audit = (await e2e.t.database.query<{ t: string }>('SELECT row_to_json(a)::text AS t FROM audit_events a')).rows.map((r) => r.t);
    expect(audit.length).toBeGreaterThan(0);
    const places: [string, string][] = [
      ...responses.map((r, i): [string, string] => [`response ${i}`, `${JSON.stringify(r.headers)}\n${r.raw}`]),
      ...e2e.t.logs.map((line, i): [string, string] => [`controller log ${i}`, line]),
      ...audit.map((row, i): [string, string] => [`audit event ${i}`, row]),
    ];
    for (const [where, text] of places) for (const encoded of ENCODINGS) expect(text.includes(encoded), where).toBe(false);
    // Every file the driver and its runtimes wrote: manifests, configs, CODEX_HOME, logs, Agent state.
    for (const encoded of ENCODINGS) {
      const grep = spawnSync('grep', ['-rlaF', encoded, e2e.dataDir], { encoding: 'utf8' });
      // 1: searched everything, found nothing. 2 with nothing found is accepted only when every error is a file
      // that went away during the search (a runtime's temporary files come and go): it holds nothing now.
      const vanishedOnly =
        grep.status === 2 &&
        grep.stderr
          .trim()
          .split('\n')
          .every((line) => line.endsWith(': No such file or directory'));
      expect([vanishedOnly ? 1 : grep.status, grep.stdout], `${encoded} ${grep.stderr}`).toEqual([1, '']);
    }
  });
});
