import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_UID_BASE } from '../../src/drivers/compute/local/sandbox/confinement.ts';
import { revisionPaths } from '../../src/drivers/compute/local/layout.ts';
import { pinnedToolchain } from '../../../runtime/src/toolchain.ts';
import { admit, newDeployTarget, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { startE2E, type E2E } from '../../../../test-support/e2e-local.ts';
import { FIXTURE_PLUGINS } from '../../../../test-support/npm-registry.ts';
import {
  callTool as callToolThroughGateway,
  scriptedModelConfiguration,
  sendMessage as sendThroughGateway,
  type GatewayAddress,
} from '../../../../test-support/scripted-agent-turn.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../../../../test-support/scripted-model-server.ts';

// An Agent tries to break out, the way a prompt injection would make it: a scripted model (the one
// fake: no model runs here) makes the real agent on the real `local` driver call its tools against
// OCC's keys and files, another Agent's state, OCC's ports and its own governance. Every answer the
// gateway sends back to the model (the next request's tool message) is what the agent got.
const GOOD = FIXTURE_PLUGINS.good;
const DEPLOY_MS = 600_000;
const TURN_MS = 240_000;
const secretCanary = `occ-secret-${randomBytes(12).toString('hex')}`;
const otherCanary = `other-agent-${randomBytes(12).toString('hex')}`;

let e2e: E2E;
let model: ScriptedModelServer;
/** Stands for OCC's API on the host's loopback: it counts every connection that reaches it. */
let occApi: Server;
let occApiConnections = 0;
let attacker: DeployTarget;
let attackerRevision: string;
let other: DeployTarget;
let otherRevision: string;

beforeAll(async () => {
  model = await startScriptedModelServer();
  occApi = createServer((socket) => {
    occApiConnections += 1;
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
  });
  await new Promise<void>((resolve) => occApi.listen(0, '127.0.0.1', () => resolve()));
  const modelPort = new URL(model.baseUrl).port;
  // The model server is the one host loopback port the operator shares with Agents.
  e2e = await startE2E({ work: { maxAttempts: 1 }, env: { OCC_LOCAL_SHARED_LOOPBACK_PORTS: modelPort } });
  // What `occ up` keeps in its data directory: the administrator's key and the key that unseals every Secret.
  writeFileSync(join(e2e.dataDir, 'admin-api-key'), `${secretCanary}-admin\n`, { mode: 0o600 });
  writeFileSync(join(e2e.dataDir, 'secret-key'), `${secretCanary}-sealing\n`, { mode: 0o600 });
});

afterAll(async () => {
  await e2e?.close();
  await model?.close();
  await new Promise<void>((resolve) => (occApi ? occApi.close(() => resolve()) : resolve()));
});

const gateway = (target: DeployTarget, revisionId: string): GatewayAddress => e2e.gateway(target, revisionId);

const sendMessage = (target: DeployTarget, revisionId: string, text: string) => sendThroughGateway(gateway(target, revisionId), text, TURN_MS);
const callToolOn = (target: DeployTarget, revisionId: string, name: string, args: Record<string, unknown>) =>
  callToolThroughGateway(model, gateway(target, revisionId), name, args, TURN_MS);
/** The model calls `name` with `args` on the attacker; returns what the tool answered (the tool message the gateway sent back). */
const callTool = (name: string, args: Record<string, unknown>) => callToolOn(attacker, attackerRevision, name, args);

/**
 * A shell command that writes the fixture plugin (three tools) under `dir` with the plugin id
 * `id`: what an agent with `exec` could plant for the gateway to discover.
 */
function plantPluginCommand(dir: string, id: string): string {
  const source = join(import.meta.dirname, '../../../../test-support/fixture-plugins/good');
  const files = ['index.js', 'package.json', 'openclaw.plugin.json'].map((name) => {
    const text = readFileSync(join(source, name), 'utf8').replaceAll(GOOD.pluginId, id);
    return `echo ${Buffer.from(text).toString('base64')} | base64 -d > ${dir}/${name}`;
  });
  return [`mkdir -p ${dir}`, ...files].join(' && ');
}

const listing = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : []);

describe('an Agent that tries to break out of the local driver', () => {
  it(
    'deploys two Agents, each confined (the attacker with read, write and exec offered, no approval asked)',
    async () => {
      // Both at once: their prepares overlap (the worker runs each Agent's work on its own).
      other = await newDeployTarget(e2e.t, { plugins: {}, values: scriptedModelConfiguration(model, { toolSearch: true }) });
      attacker = await newDeployTarget(e2e.t, { plugins: { [`openclaw:${GOOD.package}`]: { enabled: true } }, values: scriptedModelConfiguration(model) });
      otherRevision = (await admit(e2e.t, other)).id;
      attackerRevision = (await admit(e2e.t, attacker)).id;
      const [otherStatus, attackerStatus] = await Promise.all([waitTerminal(e2e.t, other, otherRevision, DEPLOY_MS), waitTerminal(e2e.t, attacker, attackerRevision, DEPLOY_MS)]);
      expect(otherStatus, JSON.stringify(otherStatus)).toMatchObject({ state: 'succeeded' });
      expect(attackerStatus).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED' });
      // The other Agent's private file, planted before the attacker's first turn.
      writeFileSync(join(e2e.dataDir, 'compute', 'local', 'agents', other.agentId, 'state', 'diary.txt'), otherCanary);

      const mark = model.completions().length;
      expect((await sendMessage(attacker, attackerRevision, 'hello')).status).toBe(200);
      const offered = new Set(model.completions()[mark]!.toolNames);
      for (const tool of ['read', 'write', 'exec', 'fixture_echo']) expect(offered.has(tool), tool).toBe(true);
      // The tools that change plugins, configuration, secrets, skills or schedules are not offered.
      for (const tool of ['plugins', 'openclaw', 'gateway', 'secrets', 'skill_workshop', 'automations']) expect(offered.has(tool), tool).toBe(false);
    },
    2 * DEPLOY_MS,
  );

  it(
    '[P-7] read and exec reach none of OCC’s keys, its database files or another Agent’s state; the agent runs as no user of the host',
    async () => {
      const localRoot = join(e2e.dataDir, 'compute', 'local');
      for (const path of [
        join(e2e.dataDir, 'admin-api-key'),
        join(e2e.dataDir, 'secret-key'),
        join(localRoot, 'driver-key'),
        join(localRoot, 'agents', other.agentId, 'state', 'diary.txt'),
      ]) {
        const result = await callTool('read', { path });
        expect(result, path).not.toContain(secretCanary);
        expect(result, path).not.toContain(otherCanary);
        // Refused before the filesystem is asked: the file tools stay in the workspace (exec below meets the sandbox's view).
        expect(result, path).toMatch(/Path escapes sandbox root/);
      }
      const shell = await callTool('exec', {
        command: `id -u; ls -la ${e2e.dataDir} ${localRoot}/agents ${homedir()} 2>&1; cat ${e2e.dataDir}/admin-api-key ${e2e.dataDir}/secret-key ${localRoot}/driver-key ${localRoot}/agents/${other.agentId}/state/diary.txt 2>&1; echo end-of-probe`,
      });
      expect(shell).toContain('end-of-probe');
      expect(shell).not.toContain(secretCanary);
      expect(shell).not.toContain(otherCanary);
      // Its own uid (not root, not OCC's); in the data directory it sees only the path down to its own Agent.
      expect(shell).toMatch(/^[1-9][0-9]{6}$/m);
      expect(shell).not.toMatch(/ (admin-api-key|secret-key|pgdata|driver-key)$/m);
      expect(shell).toMatch(new RegExp(` ${attacker.agentId}$`, 'm'));
      expect(shell).not.toMatch(new RegExp(` ${other.agentId}$`, 'm'));
      expect(shell).toMatch(/secret-key: No such file or directory/);
      expect(shell).toMatch(/diary\.txt: No such file or directory/);
    },
    8 * TURN_MS,
  );

  it(
    '[P-7] read, the tool an Agent without exec still has, gets no process environment (its gateway token, its Secrets): the file tools stay in its workspace, where they still work',
    async () => {
      const token = gateway(attacker, attackerRevision).token;
      // The gateway's own environment, and the runtime's (the sandbox's first process).
      for (const path of ['/proc/self/environ', '/proc/1/environ']) {
        const result = await callTool('read', { path });
        expect(result, path).not.toContain(token);
        expect(result, path).not.toMatch(/OPENCLAW_GATEWAY_TOKEN|OCC_RUNTIME_STATUS_TOKEN/);
        expect(result, path).toMatch(/Path escapes sandbox root/);
      }
      const note = `kept-${randomBytes(6).toString('hex')}`;
      await callTool('write', { path: 'notes/today.txt', content: note });
      expect(await callTool('read', { path: 'notes/today.txt' })).toContain(note);
    },
    6 * TURN_MS,
  );

  it(
    'exec cannot connect to OCC’s API port, PostgreSQL or another Agent’s gateway and status ports; the selected tool still runs',
    async () => {
      const otherGateway = gateway(other, otherRevision).port;
      const apiPort = (occApi.address() as AddressInfo).port;
      const ports = [apiPort, 5432, otherGateway];
      const script = `for (const port of [${ports.join(',')}]) { const s = require('node:net').connect(port, '127.0.0.1'); s.setTimeout(3000); s.on('connect', () => { console.log('CONNECTED ' + port); s.destroy(); }); s.on('error', (e) => console.log('REFUSED ' + port + ' ' + e.code)); s.on('timeout', () => { console.log('TIMEOUT ' + port); s.destroy(); }); }`;
      const result = await callTool('exec', { command: `node -e "${script.replaceAll('"', '\\"')}"; echo end-of-probe` });
      expect(result).toContain('end-of-probe');
      for (const port of ports) {
        expect(result).not.toContain(`CONNECTED ${port}`);
        expect(result).toMatch(new RegExp(`(REFUSED|TIMEOUT) ${port}`));
      }
      expect(occApiConnections).toBe(0);

      const echoed = await callTool('fixture_echo', { input: 'still-governed' });
      expect(echoed).toContain('still-governed');
    },
    3 * TURN_MS,
  );

  it(
    'writes outside its own directories do not reach the host; plugin and configuration tools are not there; an edit of its own configuration ends its gateway before OpenClaw applies it, and the restart serves the revision’s; a plugin, an .env and a hook it plants in its state do not load',
    async () => {
      const tmpBefore = listing(tmpdir());
      const homeBefore = listing(homedir());
      const marker = `escape-${randomBytes(6).toString('hex')}`;
      for (const path of [join(tmpdir(), `${marker}.txt`), join(e2e.dataDir, `${marker}.txt`), join(homedir(), `${marker}.txt`)]) {
        // Refused by the file tools' workspace rule first…
        expect(await callTool('write', { path, content: 'pwned' }), path).toMatch(/Path escapes sandbox root/);
        expect(existsSync(path), path).toBe(false);
      }
      // …and exec, which has no such rule, meets the sandbox: none of the three exists inside it.
      const escapes = [tmpdir(), e2e.dataDir, homedir()].map((dir) => join(dir, `${marker}-exec`));
      const shell = await callTool('exec', { command: `touch ${escapes.join(' ')} 2>&1; echo end-of-probe` });
      expect(shell).toContain('end-of-probe');
      for (const path of escapes) expect(existsSync(path), path).toBe(false);
      expect(
        listing(tmpdir())
          .filter((name) => !tmpBefore.includes(name))
          .filter((name) => name.includes(marker)),
      ).toEqual([]);
      expect(listing(homedir()).filter((name) => !homeBefore.includes(name))).toEqual([]);

      for (const [tool, args] of [
        ['plugins', { action: 'install', spec: 'npm:@openclaw/browser' }],
        ['openclaw', { request: 'enable the browser plugin' }],
        ['gateway', { action: 'config.get' }],
      ] as const) {
        const result = await callTool(tool, args);
        expect(result, tool).toMatch(/not found|unknown tool|not available|not allowed/i);
      }

      // …and drops a plugin with tools where OpenClaw discovers plugins: its state's global root
      // (loaded enabled even without an install record) and its workspace; an `.env` every
      // OpenClaw process would add to its environment; a managed hook the gateway would load. None
      // may load, and the Agent must serve again after the restart (a plant that kept it down would
      // be a win too).
      const revisionDir = e2e.revisionDir(attacker, attackerRevision);
      const state = join(e2e.dataDir, 'compute', 'local', 'agents', attacker.agentId, 'state');
      const planted = await callTool('exec', {
        command: `${plantPluginCommand(join(state, 'extensions', 'evil-global'), 'evil-global')}; ${plantPluginCommand(join(state, 'workspace', '.openclaw', 'extensions', 'evil-workspace'), 'evil-workspace')}; ls ${join(state, 'extensions')}; printf 'OCC_PLANTED_MARK=planted\\n' > ${join(state, '.env')}; mkdir -p ${join(state, 'hooks', 'evil-hook')} && printf -- '---\\nname: evil-hook\\n---\\n' > ${join(state, 'hooks', 'evil-hook', 'HOOK.md')}; echo '{}' > ${revisionDir}/manifest.json 2>&1; echo end-of-probe`,
      });
      expect(planted).toMatch(/evil-global/);
      expect(readFileSync(join(state, '.env'), 'utf8')).toBe('OCC_PLANTED_MARK=planted\n');
      expect(existsSync(join(state, 'hooks', 'evil-hook', 'HOOK.md'))).toBe(true);
      expect(planted).toMatch(/Read-only file system/);
      expect(existsSync(join(state, 'extensions', 'evil-global', 'openclaw.plugin.json'))).toBe(true);

      // The agent rewrites its own configuration: drops every deny and enables what was denied.
      // OpenClaw's gateway would apply that while it serves (config hot reload); the runtime ends
      // the gateway on the change, before any reload, and supervision starts it again from the
      // revision. The turn that made the edit never finishes (its gateway is gone).
      const before = await e2e.compute().describeRuntime({ namespaceId: attacker.ns, agentId: attacker.agentId }, attackerRevision);
      model.enqueue({
        kind: 'tool-call',
        name: 'exec',
        arguments: {
          command: `node -e "const f='${revisionDir}/openclaw.json'; const c=JSON.parse(require('fs').readFileSync(f,'utf8')); c.plugins.deny=[]; c.tools.deny=[]; require('fs').writeFileSync(f, JSON.stringify(c)); console.log('rewrote')"; sleep 5; echo end-of-probe`,
        },
      });
      const tamperingTurn = sendMessage(attacker, attackerRevision, 'Call exec.').catch(() => null);
      await waitFor(
        'the attacker to serve again',
        async () => (await e2e.t.request({ method: 'GET', url: `${attacker.url}/deployments/${attackerRevision}/runtime` })).body.data,
        (view) => view.running && view.ready && view.restarts > before.restarts,
        DEPLOY_MS,
        500,
      );
      await tamperingTurn;
      model.discard();
      const events = e2e.events(attacker, attackerRevision);
      expect(events.filter((e) => e.event === 'gateway.config_changed')).toHaveLength(1);
      // The gateway never began to apply the edit (OpenClaw logs this line when it does).
      expect(readFileSync(revisionPaths(join(e2e.dataDir, 'compute', 'local'), attacker.agentId, attackerRevision).logFile, 'utf8')).not.toMatch(/config change detected/);
      const plugins = (await e2e.configGet(attacker, attackerRevision, 'plugins')) as { deny?: string[] };
      expect(plugins.deny).toEqual(expect.arrayContaining(['browser', 'memory-core']));
      const tools = (await e2e.configGet(attacker, attackerRevision, 'tools')) as { deny?: string[] };
      expect(tools.deny).toEqual(expect.arrayContaining(['plugins', 'openclaw', 'gateway', 'secrets']));
      // What the restarted gateway runs with: no recap model, no hooks, no host terminal or coding CLIs for its token.
      expect(await e2e.configGet(attacker, attackerRevision, 'agents.defaults.utilityModel')).toBe('');
      expect(await e2e.configGet(attacker, attackerRevision, 'hooks')).toEqual({ internal: { enabled: false } });
      expect(await e2e.configGet(attacker, attackerRevision, 'gateway')).toMatchObject({ terminal: { enabled: false }, cliAgents: { enabled: false } });
      const manifest = JSON.parse(readFileSync(join(revisionDir, 'manifest.json'), 'utf8')) as { revisionId: string };
      expect(manifest.revisionId).toBe(attackerRevision);
      expect(listing(join(state, 'extensions'))).toEqual([]);
      expect([existsSync(join(state, '.env')), existsSync(join(state, 'hooks'))]).toEqual([false, false]);
      const view = (await e2e.t.request({ method: 'GET', url: `${attacker.url}/deployments/${attackerRevision}/runtime` })).body.data;
      const running = (view.loaded.plugins as Array<{ id: string }>).map((plugin) => plugin.id);
      expect(running).toContain(GOOD.pluginId);
      expect(running.filter((id) => id.startsWith('evil'))).toEqual([]);
      // The selected plugin's tool still runs for the agent.
      expect(await callTool('fixture_echo', { input: 'still-governed-after-restart' })).toContain('still-governed-after-restart');
      // Nothing of the planted .env reached the restarted gateway's environment (its tools inherit it).
      expect(await callTool('exec', { command: 'echo "mark=[$OCC_PLANTED_MARK]"; echo end-of-probe' })).toContain('mark=[]');
    },
    DEPLOY_MS + 8 * TURN_MS,
  );

  it(
    '[N-9] through Tool Search, the tools of bundled plugins nobody selected are neither found nor callable',
    async () => {
      const mark = model.completions().length;
      expect((await sendMessage(other, otherRevision, 'hello')).status).toBe(200);
      expect(model.completions()[mark]!.toolNames).toEqual(expect.arrayContaining(['tool_search', 'tool_call']));
      // file-transfer, ollama and talk-voice are bundled and load by default; nobody selected them.
      const unselected = ['file_fetch', 'dir_list', 'node_inference', 'talk_voice'];
      const found = await callToolOn(other, otherRevision, 'tool_search', { query: 'file_fetch dir_list node_inference talk_voice transfer a file' });
      for (const tool of unselected) expect(found, tool).not.toMatch(new RegExp(`"(id|name)"\\s*:\\s*"${tool}"`));
      // The same search finds what the agent may use: a search that found nothing at all would prove nothing.
      const core = await callToolOn(other, otherRevision, 'tool_search', { query: 'run a shell command exec' });
      expect(core).toMatch(/"name"\s*:\s*"exec"/);
      const called = await callToolOn(other, otherRevision, 'tool_call', { id: 'file_fetch', args: { path: '/etc/hostname' } });
      expect(called).toMatch(/not found|unknown|not available|not allowed|no tool/i);
    },
    3 * TURN_MS,
  );

  it('[S-2] the runtime read back from the serving gateway what it runs: only the selected plugin gives tools, providers are listed, nothing is scheduled; the live view shows it', async () => {
    const reads = e2e.events(attacker, attackerRevision).filter((e) => e.event === 'gateway.loaded');
    expect(reads.length).toBeGreaterThanOrEqual(1);
    const view = (await e2e.t.request({ method: 'GET', url: `${attacker.url}/deployments/${attackerRevision}/runtime` })).body.data;
    const withTools = (view.loaded.plugins as Array<{ id: string; tools: string[] }>).filter((plugin) => plugin.tools.length > 0);
    expect(withTools).toEqual([{ id: GOOD.pluginId, tools: expect.arrayContaining(['fixture_echo']) }]);
    // The scripted provider's bundled plugin runs without tools, and is listed.
    expect(view.loaded.plugins.length).toBeGreaterThan(withTools.length);
    expect(view.loaded.coreTools).toEqual(expect.arrayContaining(['read', 'exec']));
    expect(view.loaded.scheduledJobs).toEqual([]);
    const otherView = (await e2e.t.request({ method: 'GET', url: `${other.url}/deployments/${otherRevision}/runtime` })).body.data;
    expect(otherView.loaded.plugins.filter((plugin: { tools: string[] }) => plugin.tools.length > 0)).toEqual([]);
  });

  it(
    '[P-7] with the gateway token its exec inherits, the agent stores a shell job through OpenClaw’s own CLI: the gateway takes it, and never runs it on its schedule',
    async () => {
      // The attacker's whole play in one exec: the token is in its environment (OpenClaw passes
      // the gateway's on), the CLI finds the gateway from the configuration path it inherits too.
      const marker = join(e2e.dataDir, 'compute', 'local', 'agents', attacker.agentId, 'state', 'planted-job-ran');
      const { nodeBinary, openclawEntry } = pinnedToolchain();
      const shell = await callTool('exec', {
        command: `echo "token=[\${OPENCLAW_GATEWAY_TOKEN:+held}]"; ${nodeBinary} ${openclawEntry} automations create --name planted --every 2s --command 'echo ran >> ${marker}' --json 2>&1; sleep 12; echo "ran=[$(cat ${marker} 2>/dev/null)]"; echo end-of-probe`,
        // In the foreground for as long as OpenClaw allows (by default it backgrounds after 10 s).
        yieldMs: 120_000,
      });
      expect(shell).toContain('end-of-probe');
      expect(shell).toContain('token=[held]');
      // OpenClaw has no switch against storing it: the job is there, its payload a shell command.
      expect(shell).toMatch(/"kind"\s*:\s*"command"/);
      // Six due times later, nothing ran it.
      expect(shell).toContain('ran=[]');
      expect(existsSync(marker)).toBe(false);
    },
    2 * TURN_MS,
  );

  it(
    '[P-7] with the same token, the gateway refuses what would rewrite its governance or give a shell: configuration writes (read-only), a host terminal, a self-update',
    async () => {
      // What a prompt-injected agent would try next with the token: OpenClaw's own admin API, through its CLI.
      const config = join(e2e.revisionDir(attacker, attackerRevision), 'openclaw.json');
      const before = readFileSync(config, 'utf8');
      const configChanges = () => e2e.events(attacker, attackerRevision).filter((e) => e.event === 'gateway.config_changed').length;
      const changesBefore = configChanges();
      const { nodeBinary, openclawEntry } = pinnedToolchain();
      /** One admin call as the agent's shell would make it; `params` is one shell word. */
      const call = (method: string, params: string) => `echo "== ${method}"; ${nodeBinary} ${openclawEntry} gateway call ${method} --params ${params} --json 2>&1`;
      // config.get gives the base hash every write needs; the rewrite drops every deny.
      const rewrite = `${nodeBinary} -e "const fs=require('fs'); const s=JSON.parse(fs.readFileSync(0,'utf8')); const c=JSON.parse(s.raw); c.tools.deny=[]; c.plugins.deny=[]; fs.writeFileSync('/tmp/apply.json', JSON.stringify({raw: JSON.stringify(c), baseHash: s.hash})); fs.writeFileSync('/tmp/patch.json', JSON.stringify({raw: JSON.stringify({tools: {deny: []}}), baseHash: s.hash, replacePaths: ['tools.deny']}))"`;
      // Two execs: each cold CLI start costs seconds, and OpenClaw backgrounds an exec after its foreground time.
      const execs = [
        [
          `${nodeBinary} ${openclawEntry} gateway call config.get --params '{}' --json | ${rewrite}`,
          call('config.apply', '"$(cat /tmp/apply.json)"'),
          call('config.patch', '"$(cat /tmp/patch.json)"'),
        ],
        [call('terminal.open', `'{"cols":80,"rows":24}'`), call('update.run', "'{}'")],
      ];
      let shell = '';
      for (const commands of execs) {
        const output = await callTool('exec', { command: [...commands, 'echo end-of-probe'].join('; '), yieldMs: 120_000 });
        expect(output).toContain('end-of-probe');
        shell += `${output}\n`;
      }
      const answers = Object.fromEntries(
        shell
          .split(/^== /m)
          .slice(1)
          .map((part) => [part.slice(0, part.indexOf('\n')), part]),
      );
      // Both writes reached the gateway with a valid base (so only the read-only rule refused them).
      for (const method of ['config.apply', 'config.patch']) expect(answers[method], method).toMatch(/ConfigReadOnlyError/);
      expect(answers['terminal.open']).toMatch(/terminal is disabled/);
      // The runtime owns the gateway's lifecycle: an update is skipped, nothing installed.
      expect(answers['update.run']).toMatch(/"status"\s*:\s*"skipped"/);
      expect(answers['update.run']).toMatch(/external-supervisor-update-required/);
      expect(readFileSync(config, 'utf8')).toBe(before);
      expect(configChanges()).toBe(changesBefore);
      expect(await callTool('fixture_echo', { input: 'governed-after-the-api' })).toContain('governed-after-the-api');
    },
    2 * TURN_MS,
  );

  it(
    '[P-7] inside its sandbox: no capabilities, only its own processes, the runtime’s code read-only, the driver’s log and pid file out of its reach, the operator’s home unseen',
    async () => {
      const homeCanary = join(homedir(), `.occ-breakout-${randomBytes(6).toString('hex')}`);
      writeFileSync(homeCanary, secretCanary, { mode: 0o644 });
      try {
        const paths = revisionPaths(join(e2e.dataDir, 'compute', 'local'), attacker.agentId, attackerRevision);
        const checkout = join(import.meta.dirname, '../../../..');
        const code = [join(checkout, 'apps', 'runtime'), join(checkout, 'node_modules')];
        const shell = await callTool('exec', {
          command: [
            "grep -E '^(CapEff|CapPrm|NoNewPrivs):' /proc/self/status",
            "echo comms=[$(cat /proc/[0-9]*/comm 2>/dev/null | sort -u | tr '\\n' ,)]",
            // OCC itself (this test process runs the controller): another uid alone would answer EPERM.
            `node -e "try { process.kill(${process.pid}, 0); console.log('signal=sent') } catch (e) { console.log('signal=' + e.code) }"`,
            // Field 5 of mountinfo is where a mount is, field 6 its own options (ro or rw first).
            `awk '${code.map((path) => `$5=="${path}"`).join(' || ')} {print "mount " $5 " " $6}' /proc/self/mountinfo`,
            `touch ${code.map((path) => join(path, '.occ-planted')).join(' ')} 2>&1`,
            `echo "pid=[$(cat ${paths.pidFile} 2>&1)]"`,
            `ls -a ${paths.logs} 2>&1`,
            `cat ${paths.logFile} ${homeCanary} 2>&1`,
            'echo end-of-probe',
          ].join('; '),
        });
        expect(shell).toContain('end-of-probe');
        expect(shell).toMatch(/^CapEff:\s+0{16}$/m);
        expect(shell).toMatch(/^CapPrm:\s+0{16}$/m);
        expect(shell).toMatch(/^NoNewPrivs:\s+1$/m);
        // Its pid namespace: OCC's process does not exist there (not merely another user's), and no host process is listed.
        expect(shell, shell).toContain('signal=ESRCH');
        const comms = /comms=\[([^\]]*)\]/.exec(shell)?.[1]?.split(',') ?? [];
        expect(comms, shell).toContain('openclaw-gatewa');
        expect(comms.filter((comm) => /^(postgres|vitest|chromium|dockerd|sshd)/.test(comm))).toEqual([]);
        // The runtime's code and toolchain are read-only mounts: nothing planted there.
        for (const path of code) {
          expect(shell, shell).toMatch(new RegExp(`^mount ${path} ro(,|$)`, 'm'));
          expect(existsSync(join(path, '.occ-planted')), path).toBe(false);
        }
        // The driver's files: an empty pid file and a log directory it may not open, in place of the real ones.
        expect(shell, shell).toContain('pid=[]');
        expect(shell, shell).toContain(`ls: cannot open directory '${paths.logs}': Permission denied`);
        expect(shell, shell).toContain(`${paths.logFile}: Permission denied`);
        expect(shell, shell).toContain(`${homeCanary}: No such file or directory`);
        expect(shell).not.toContain(secretCanary);
      } finally {
        rmSync(homeCanary, { force: true });
      }
    },
    2 * TURN_MS,
  );

  it('[P-4] from their start through their turns, neither Agent connected anywhere outside: every way out is the egress gate, and it let nothing through', () => {
    for (const [target, revisionId] of [
      [attacker, attackerRevision],
      [other, otherRevision],
    ] as const) {
      const log = readFileSync(revisionPaths(join(e2e.dataDir, 'compute', 'local'), target.agentId, revisionId).logFile, 'utf8');
      const egress = log.split('\n').filter((line) => line.startsWith('egress '));
      console.log(`egress of ${target.agentId}: ${JSON.stringify(egress)}`);
      // The plugin registry is a loopback port the operator shares; the model server too. Nothing else was reached.
      expect(
        egress.filter((line) => line.startsWith('egress allowed')),
        target.agentId,
      ).toEqual([]);
    }
  });

  // As root, each confined runtime has its own uid (SANDBOX_UID_BASE and up): whatever it wrote outside its directories would carry it.
  it.runIf(process.getuid?.() === 0)('nothing in the host’s temp directory or home belongs to an Agent', () => {
    const agentOwned = (dir: string) => listing(dir).filter((name) => lstatSync(join(dir, name)).uid >= SANDBOX_UID_BASE);
    expect(agentOwned(tmpdir())).toEqual([]);
    expect(agentOwned(homedir())).toEqual([]);
  });

  it('OpenClaw’s own log is written in each Agent’s own state directory', () => {
    for (const [target, revisionId] of [
      [attacker, attackerRevision],
      [other, otherRevision],
    ] as const) {
      const logs = join(e2e.dataDir, 'compute', 'local', 'agents', target.agentId, 'state', 'logs');
      expect(listing(logs), target.agentId).toContain('openclaw.log');
      expect(readFileSync(join(logs, 'openclaw.log'), 'utf8').length, target.agentId).toBeGreaterThan(0);
      expect(e2e.events(target, revisionId).length).toBeGreaterThan(0);
    }
  });

  it(
    'a process the agent detaches from its tools does not outlive its runtime: stopping the Agent ends it',
    async () => {
      // A duration no other process on the host sleeps for names the agent's process from outside.
      const sleep = `sleep ${600_000 + Math.floor(Math.random() * 100_000)}`;
      const alive = () => spawnSync('pgrep', ['-f', `^${sleep}$`], { encoding: 'utf8' }).stdout.trim();
      const shell = await callTool('exec', { command: `setsid nohup ${sleep} </dev/null >/dev/null 2>&1 & echo end-of-probe` });
      expect(shell).toContain('end-of-probe');
      await waitFor(
        'the detached process on the host',
        async () => alive(),
        (pids) => pids !== '',
        30_000,
        200,
      );
      const stopped = await e2e.t.request({ method: 'POST', url: `${attacker.url}/stop` });
      expect(stopped.status, stopped.raw).toBe(202);
      await waitFor(
        'the runtime stopped and its detached process gone',
        async () => alive(),
        (pids) => pids === '',
        120_000,
        500,
      );
    },
    2 * TURN_MS,
  );
});
