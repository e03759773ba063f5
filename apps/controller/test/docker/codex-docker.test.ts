import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createComputeDriver } from '../../src/composition/compute-drivers.ts';
import { demuxLog } from '../../src/drivers/compute/docker/container-log.ts';
import { labelFilter, LABELS } from '../../src/drivers/compute/docker/container-spec.ts';
import { RUNTIME_PORTS } from '../../src/drivers/compute/docker/runtime-ports.ts';
import { dockerComputeSettings } from '../../src/drivers/compute/docker/settings.ts';
import type { ComputeDriver } from '../../src/core/ports/compute-driver.ts';
import { admit, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { execInContainer } from '../../../../test-support/docker/container-exec.ts';
import { relayToAgents, type HostRelay } from '../../../../test-support/docker/host-relay.ts';
import { ensureTestRuntimeImage } from '../../../../test-support/docker/test-runtime-image.ts';
import { WORKER } from '../../../../test-support/e2e-local.ts';
import { createCodexAgent, startCodexBackends, type CodexBackends } from '../../../../test-support/codex-agent-world.ts';
import type { FakeHostedCatalog } from '../../../../test-support/fake-hosted-catalog.ts';
import { execThroughCodexTurn, sendMessage } from '../../../../test-support/scripted-agent-turn.ts';
import type { ScriptedResponsesServer } from '../../../../test-support/scripted-responses-server.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate } from '../../../../test-support/world.ts';
import { removeInstallationObjects } from '../../../../test-support/docker/remove-installation.ts';

// A Codex Agent on the docker ComputeDriver: the real runtime image on the real engine, the real
// `codex app-server` and the OpenClaw gateway with the pinned Codex harness inside the Agent's
// container. The hosted service (identity, managed policies) and the model behind Codex are the
// HTTPS fakes of this host, relayed to the Agents' networks on the host's own address — the way an
// operator's services are reached — and trusted through OCC_RUNTIME_CA_FILE.
const DEPLOY_MS = 600_000;
const PAT = `at-canary-${randomBytes(16).toString('hex')}`;

const docker = new Docker();
const installation = `t${randomBytes(4).toString('hex')}`;
let backends: CodexBackends;
let hosted: FakeHostedCatalog;
let model: ScriptedResponsesServer;
const relays: HostRelay[] = [];
let root: string;
let controller: TestController;
let target: DeployTarget;

/** The revision's runtime (gateway) container, or its Codex app-server container. */
async function containerOf(revisionId: string, role: 'runtime' | 'app-server' = 'runtime') {
  const all = await docker.listContainers({ all: true, filters: { label: labelFilter(installation, { revisionId }) } });
  const found = all.find((c) => (c.Labels[LABELS.role] ?? 'runtime') === role);
  if (!found) throw new Error(`no ${role} container for ${revisionId}`);
  return docker.getContainer(found.Id).inspect();
}
/** The runtime's last lines and the gateway's own log file's, for whoever reads a failure. */
async function lastLines(id: string): Promise<string> {
  const runtime = demuxLog((await docker.getContainer(id).logs({ stdout: true, stderr: true, tail: 60 })) as unknown as Buffer);
  const openclaw = await inContainer(id, ['tail', '-n', '40', '/var/lib/occ/state/logs/openclaw.log']);
  return `${runtime}\n--- openclaw.log ---\n${openclaw}\n--- disk ---\n${await inContainer(id, ['sh', '-c', 'df -h /var/lib/occ /tmp; du -sh /var/lib/occ/*/ /var/lib/occ/tmp/* 2>/dev/null | sort -h | tail -8'])}`;
}
const inContainer = async (id: string, cmd: string[]) => (await execInContainer(docker, id, cmd)).output;

beforeAll(async () => {
  const image = await ensureTestRuntimeImage();
  const subnets = dockerComputeSettings({ OCC_RUNTIME_IMAGE: image }).subnets;
  backends = await startCodexBackends({ pat: PAT, accountId: 'acct-docker', caFileMode: 0o644 });
  ({ hosted, model } = backends);
  // Discovery (this process) uses the fake on loopback; the Agents reach it and the model through relays on the host's address.
  const hostedRelay = await relayToAgents(hosted.identityBaseUrl, subnets);
  const modelRelay = await relayToAgents(model.baseUrl, subnets);
  relays.push(hostedRelay, modelRelay);
  root = mkdtempSync(join(tmpdir(), 'occ-codex-docker-'));
  const env = {
    ...process.env,
    OCC_RUNTIME_IMAGE: image,
    OCC_DOCKER_INSTALLATION: installation,
    OCC_CODEX_CATALOG_URL: new URL('backend-api/', hostedRelay.url).href,
    OCC_CODEX_IDENTITY_URL: hostedRelay.url,
    OCC_CODEX_MODEL_URL: modelRelay.url,
    OCC_RUNTIME_CA_FILE: backends.caFile,
  };
  const driver: ComputeDriver | undefined = await createComputeDriver('docker', { dataDir: root, env });
  if (!driver) throw new Error('no docker ComputeDriver');
  controller = await startTestController({ compute: driver, worker: WORKER, work: { maxAttempts: 1 } });
  const ns = controller.defaultNamespaceId;
  const { agent, configurationId } = await createCodexAgent((url, body) => adminCreate(controller, url, body), ns, { pat: PAT, plugins: {} });
  target = { ns, cfg: configurationId, agentId: agent.id, servicePrincipalId: agent.servicePrincipalId, url: `/namespaces/${ns}/agents/${agent.id}` };
}, 900_000);

afterAll(async () => {
  await removeInstallationObjects(docker, installation);
  await controller?.close().catch(() => {});
  for (const relay of relays) await relay.close();
  await backends?.close();
  if (root) rmSync(root, { recursive: true, force: true });
}, 120_000);

describe('a Codex Agent on the docker ComputeDriver (real engine, real image)', () => {
  let revisionId: string;

  it(
    "[G-6][K-8] deploys: the app-server signs in with the codex_pat at the Installation's hosted service, the gateway serves",
    async () => {
      const started = Date.now();
      revisionId = (await admit(controller, target)).id;
      const status = await waitTerminal(controller, target, revisionId, DEPLOY_MS);
      console.log(`docker codex deploy: ${status.state} after ${Date.now() - started} ms`);
      if (status.state !== 'succeeded') console.log(await lastLines((await containerOf(revisionId)).Id));
      expect(status).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true, error: null, warnings: [] });
      const whoamis = hosted.requests.filter((r) => r.path === '/api/accounts/v1/user-auth-credential/whoami');
      expect(whoamis.length).toBeGreaterThan(0);
      expect(whoamis.every((r) => r.headers.authorization === `Bearer ${PAT}`)).toBe(true);
      const info = await containerOf(revisionId);
      const appServer = await containerOf(revisionId, 'app-server');
      expect(JSON.stringify([info.Path, info.Args, info.Config.Cmd, info.Config.Labels, appServer.Path, appServer.Args, appServer.Config.Labels])).not.toContain(PAT);
      // [G-6] two containers: the codex_pat is in the app-server's environment only, never the gateway's.
      expect(JSON.stringify(info.Config.Env)).not.toContain(PAT);
      expect(appServer.Config.Env).toContain(`OCC_RUNTIME_CODEX_PAT=${PAT}`);
      expect(appServer.Config.Env!.some((e) => e.startsWith('OCC_RUNTIME_GATEWAY_TOKEN='))).toBe(false);
      expect(info.Config.Env).toEqual(expect.arrayContaining(['OCC_RUNTIME_CODEX_ROLE=gateway']));
      expect(appServer.Config.Env).toEqual(expect.arrayContaining(['OCC_RUNTIME_CODEX_ROLE=app-server']));
      // Both on the Agent's own network; only the gateway's container publishes anything on the host.
      expect(appServer.HostConfig.NetworkMode).toBe(info.HostConfig.NetworkMode);
      expect(
        Object.values(appServer.NetworkSettings.Ports ?? {})
          .flat()
          .filter(Boolean),
      ).toEqual([]);
      expect(appServer.State.Running && info.State.Running).toBe(true);
      // A Codex Agent's own limits (settings.ts): its private area exec and 4g, its memory 5g; /tmp stays noexec.
      for (const container of [info, appServer]) {
        expect(container.HostConfig.Memory).toBe(5 * 1024 ** 3);
        expect(container.HostConfig.Tmpfs?.['/var/lib/occ']?.split(',')).toEqual(expect.arrayContaining(['exec', 'size=4g']));
        expect(container.HostConfig.Tmpfs?.['/tmp']?.split(',')).not.toContain('exec');
      }
    },
    DEPLOY_MS + 60_000,
  );

  it('[X-1][K-7] a message is answered by Codex from inside the container: the model got the turn from Codex with the codex_pat', async () => {
    const info = await containerOf(revisionId);
    const binding = info.NetworkSettings.Ports[`${RUNTIME_PORTS.relay}/tcp`]?.[0];
    const token = (info.Config.Env ?? []).find((e) => e.startsWith('OCC_RUNTIME_GATEWAY_TOKEN='))!.split('=')[1]!;
    const reply = `codex in a container says ${randomBytes(4).toString('hex')}`;
    model.enqueue({ kind: 'text', text: reply });
    const started = Date.now();
    const answer = await sendMessage({ port: Number(binding!.HostPort), token }, 'Hello from the docker test', 300_000).catch(async (error: unknown) => {
      console.log(await lastLines(info.Id));
      throw error;
    });
    console.log(`docker codex turn: ${Date.now() - started} ms`);
    const stats = await docker.getContainer(info.Id).stats({ stream: false });
    console.log(
      `docker codex container memory: ${Math.round(stats.memory_stats.usage / 2 ** 20)} MiB now, ${Math.round(((stats.memory_stats as { max_usage?: number }).max_usage ?? 0) / 2 ** 20)} MiB at most`,
    );
    if (answer.status !== 200) console.log(`${JSON.stringify(answer.body)}\n${await lastLines(info.Id)}\nmodel requests: ${model.requests.length}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ choices: [{ message: { role: 'assistant', content: expect.stringContaining(reply) } }] });
    const [turn] = model.turns();
    expect(turn!.headers.version).toBe('0.154.0');
    expect(turn!.headers.authorization).toBe(`Bearer ${PAT}`);
    expect(turn!.headers['chatgpt-account-id']).toBe('acct-docker');
    expect(JSON.stringify(turn!.body.input)).toContain('Hello from the docker test');
  }, 360_000);

  it("[P-7][G-6] attacked through its turn: the exec tool finds the codex_pat in no process and no file of the gateway's container", async () => {
    const info = await containerOf(revisionId);
    const port = Number(info.NetworkSettings.Ports[`${RUNTIME_PORTS.relay}/tcp`]![0]!.HostPort);
    const token = (info.Config.Env ?? []).find((e) => e.startsWith('OCC_RUNTIME_GATEWAY_TOKEN='))!.split('=')[1]!;
    // Every process's environment and command line it can read, and every file (up to 64 MiB) of the container's
    // private area and /tmp, searched with the image's Node (it has no grep); the pattern is assembled at run time
    // so that the probe's own command line does not hold it.
    const probe = [
      'const fs = require("fs"); const p = ["at", "canary"].join("-"); let procs = 0, seen = 0, files = 0;',
      'for (const d of fs.readdirSync("/proc")) { if (!/^[0-9]+$/.test(d)) continue; seen++;',
      '  for (const f of ["environ", "cmdline"]) { try { if (fs.readFileSync("/proc/" + d + "/" + f, "latin1").includes(p)) procs++; } catch {} } }',
      'const walk = (dir) => { let es; try { es = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }',
      '  for (const e of es) { const x = dir + "/" + e.name; if (e.isDirectory()) walk(x);',
      '    else if (e.isFile()) { try { if (fs.statSync(x).size < 64 * 2 ** 20 && fs.readFileSync(x, "latin1").includes(p)) files++; } catch {} } } };',
      'walk("/var/lib/occ"); walk("/tmp");',
      'console.log("processes-with-it=" + procs); console.log("files-with-it=" + files); console.log("processes-seen=" + seen);',
    ].join(' ');
    const command = `"$(command -v node || echo /opt/occ/apps/runtime/node24/node_modules/node/bin/node)" -e '${probe}'; echo end-of-probe`;
    const shell = await execThroughCodexTurn(model, { port, token }, command);
    expect(shell).toContain('end-of-probe');
    expect(shell).not.toContain(PAT);
    // No environment or command line holds it, no file holds it, and the probe did see processes (the gateway's own).
    const count = (name: string) => Number(new RegExp(`${name}=(\\d+)`).exec(shell)?.[1]);
    expect([count('processes-with-it'), count('files-with-it')], shell).toEqual([0, 0]);
    expect(count('processes-seen'), shell).toBeGreaterThan(2);
  }, 360_000);

  it("[P-7][G-6][X-2] attacked through its turn: the exec tool takes the gateway's app-server credential, yet the app-server runs no command, writes no configuration and starts no MCP server for it", async () => {
    const info = await containerOf(revisionId);
    const port = Number(info.NetworkSettings.Ports[`${RUNTIME_PORTS.relay}/tcp`]![0]!.HostPort);
    const token = (info.Config.Env ?? []).find((e) => e.startsWith('OCC_RUNTIME_GATEWAY_TOKEN='))!.split('=')[1]!;
    // What an attacker's script does in the gateway's container: the credential from the gateway's environment,
    // the address from its configuration, then the app-server's own methods — a command that prints the app-server
    // container's environments (where the codex_pat is), a configuration write, a thread with an MCP server of its
    // own. Each answer is printed as result or error, with whether the codex_pat's prefix is in it.
    const probe = [
      'const fs = require("fs"); const WS = require("/opt/occ/node_modules/ws"); const p = ["at", "canary"].join("-"); let tok = "";',
      'for (const d of fs.readdirSync("/proc")) { if (!/^[0-9]+$/.test(d)) continue;',
      '  try { const m = /OCC_CODEX_APP_SERVER_TOKEN=([^\\0]+)/.exec(fs.readFileSync("/proc/" + d + "/environ", "latin1")); if (m) tok = m[1]; } catch {} }',
      'console.log("token-found=" + (tok ? 1 : 0));',
      'const url = JSON.parse(fs.readFileSync("/var/lib/occ/revision/openclaw.json", "utf8")).plugins.entries.codex.config.appServer.url;',
      'const asks = [["initialize", { clientInfo: { name: "probe", version: "1" } }],',
      '  ["command/exec", { command: ["sh", "-c", "cat /proc/*/environ"], sandboxPolicy: { type: "dangerFullAccess" } }],',
      '  ["config/batchWrite", { edits: [{ keyPath: "mcp_servers.x.command", value: "sh", mergeStrategy: "upsert" }] }],',
      '  ["thread/start", { config: { "mcp_servers.x.command": "sh", "mcp_servers.x.args": ["-c", "cat /proc/*/environ"] } }]];',
      'const ws = new WS(url, { headers: { Authorization: "Bearer " + tok } }); let i = 0;',
      'const next = () => { if (i === 1) ws.send(JSON.stringify({ method: "initialized" })); if (i < asks.length) { ws.send(JSON.stringify({ id: i + 1, method: asks[i][0], params: asks[i][1] })); i++; } else ws.close(); };',
      'ws.on("open", next); ws.on("error", (e) => console.log("ws-error=" + e.message)); ws.on("close", () => console.log("end-of-probe"));',
      'ws.on("message", (d) => { const m = JSON.parse(d); if (m.id === undefined) return; const t = JSON.stringify(m);',
      '  console.log("answer-" + asks[m.id - 1][0] + "=" + (m.error ? "error " + String(m.error.message).slice(0, 160) : "result") + " pat=" + (t.includes(p) ? 1 : 0)); next(); });',
    ].join(' ');
    const command = `"$(command -v node || echo /opt/occ/apps/runtime/node24/node_modules/node/bin/node)" -e '${probe}'`;
    const shell = await execThroughCodexTurn(model, { port, token }, command);
    expect(shell).toContain('end-of-probe');
    expect(shell).not.toContain(PAT);
    // It did get in (the credential and the handshake are real): what it asked next is refused at the gate.
    expect(shell).toContain('token-found=1');
    expect(shell).toContain('answer-initialize=result pat=0');
    for (const method of ['command/exec', 'config/batchWrite', 'thread/start'])
      expect(shell, shell).toMatch(new RegExp(`answer-${method}=error OCC does not let the gateway ask the app-server this: ${method} .* pat=0`));
    const appServer = await containerOf(revisionId, 'app-server');
    const refusals = demuxLog((await docker.getContainer(appServer.Id).logs({ stdout: true, stderr: true, tail: 200 })) as unknown as Buffer)
      .split('\n')
      .filter((line) => line.includes('"event":"codex.gate.refused"'));
    expect(refusals.map((line) => JSON.parse(line).method)).toEqual(['command/exec', 'config/batchWrite', 'thread/start']);
  }, 360_000);

  it('[G-8][G-9] the app-server container restarts: the gateway container goes non-ready, restarts only OpenClaw with the new credential and answers again', async () => {
    const info = await containerOf(revisionId);
    const appServer = await containerOf(revisionId, 'app-server');
    const live = async () =>
      (await controller.request({ method: 'GET', url: `${target.url}/deployments/${revisionId}/runtime` })).body.data as {
        ready: boolean;
        phase: string | null;
        startupId: string | null;
      };
    const before = await live();
    expect(before).toMatchObject({ ready: true, phase: 'ready' });
    await docker.getContainer(appServer.Id).restart({ t: 0 });
    await waitFor('the gateway container to leave ready', live, (view) => view.phase !== 'ready', 60_000, 200);
    const after = await waitFor('ready again', live, (view) => view.ready, 360_000, 1_000);
    // The same runtime process in the same container start: only OpenClaw was restarted.
    expect(after.startupId).toBe(before.startupId);
    const now = await containerOf(revisionId);
    expect([now.RestartCount, now.State.StartedAt]).toEqual([info.RestartCount, info.State.StartedAt]);
    const logs = demuxLog((await docker.getContainer(info.Id).logs({ stdout: true, stderr: true, tail: 2000 })) as unknown as Buffer);
    expect(logs.split('\n').filter((line) => line.includes('"event":"gateway.started"'))).toHaveLength(2);
    expect(logs).toContain('"event":"codex.peer.changed"');
    const token = (info.Config.Env ?? []).find((e) => e.startsWith('OCC_RUNTIME_GATEWAY_TOKEN='))!.split('=')[1]!;
    const port = Number(now.NetworkSettings.Ports[`${RUNTIME_PORTS.relay}/tcp`]![0]!.HostPort);
    const reply = `codex after the restart says ${randomBytes(4).toString('hex')}`;
    model.enqueue({ kind: 'text', text: reply });
    const answer = await sendMessage({ port, token }, 'Hello again', 300_000);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ choices: [{ message: { content: expect.stringContaining(reply) } }] });
  }, 480_000);
});
