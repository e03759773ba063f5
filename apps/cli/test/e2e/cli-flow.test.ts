import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OCC_BIN, runOcc, type OccResult } from '../../../../test-support/cli-world.ts';
import { startOccUp, type RunningOccUp } from '../../../../test-support/occ-up.ts';
import { runInPty, type PtyResult } from '../../../../test-support/pty.ts';
import { scriptedModelConfiguration } from '../../../../test-support/scripted-agent-turn.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../../../../test-support/scripted-model-server.ts';

/** A Secret value no output, file or process argument may ever show. */
const CANARY = `occ-cli-canary-${process.pid}-5e1f`;
/** A bundled plugin of the pinned OpenClaw: nothing to download, a real install plan and gateway. */
const PLUGIN = 'openclaw:llm-task';

/** Every command line of this machine's processes, sampled while a deploy runs. */
function processArguments(): string {
  return execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
}

describe('occ, as a person uses it, against a real `occ up` (PGlite, the local ComputeDriver, the real OpenClaw runtime)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'occ-cli-e2e-'));
  const configFile = join(dir, 'config', 'config.json');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    OCC_CONFIG: configFile,
    NO_COLOR: '1',
    ...(process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {}),
  };
  /** The Agent's model: scripted, its key the canary Secret, on a loopback port the confined runtime may reach. */
  let model: ScriptedModelServer;
  let up: RunningOccUp | undefined;
  let server = '';
  let adminKey = '';
  const outputs: string[] = [];
  const processSamples: string[] = [];
  const occ = async (args: string[], options: { stdin?: string } = {}): Promise<OccResult> => {
    const result = await runOcc(args, env, { ...options, timeoutMs: 300_000 });
    outputs.push(result.stdout, result.stderr);
    return result;
  };
  const json = (result: OccResult) => {
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };
  /** Samples `ps` every 300 ms while `work` runs (a deploy: the runtime and its children start then). */
  async function sampling<T>(work: Promise<T>): Promise<T> {
    let done = false;
    const sampler = (async () => {
      while (!done) {
        processSamples.push(processArguments());
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    })();
    try {
      return await work;
    } finally {
      done = true;
      await sampler;
    }
  }

  beforeAll(async () => {
    model = await startScriptedModelServer();
    // The real `occ up` on its embedded defaults; its own context is left out so `occ login` makes one.
    up = await startOccUp(dir, { ...env, OCC_LOG_LEVEL: 'warn', OCC_LOCAL_SHARED_LOOPBACK_PORTS: new URL(model.baseUrl).port });
    ({ server, adminKey } = up);
  });

  afterAll(async () => {
    await up?.stop();
    await model?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let pty: PtyResult;

  it('login from stdin, then namespace → Secret from stdin → Configuration from YAML → Agent with a plugin → grant → plugins search → deploy --wait on a terminal', async () => {
    const login = await occ(['login', '--server', server, '--name', 'local'], { stdin: `${adminKey}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect(statSync(configFile).mode & 0o777).toBe(0o600);

    expect(json(await occ(['namespaces', 'create', 'team-a', '-o', 'json'])).name).toBe('team-a');
    expect((await occ(['context', 'set-namespace', 'team-a'])).code).toBe(0);
    expect(json(await occ(['secrets', 'create', 'model-key', '-o', 'json'], { stdin: `${CANARY}\n` })).version).toBe(1);
    const file = join(dir, 'base.yaml');
    // The scripted model, its key the Secret (an OpenClaw SecretRef to the bound variable), and the gateway's chat endpoint on.
    const values = {
      ...scriptedModelConfiguration(model, { apiKey: { source: 'env', provider: 'default', id: 'MODEL_API_KEY' } }),
      tools: { profile: 'coding', toolSearch: false },
    };
    writeFileSync(file, `name: base\nvalues: ${JSON.stringify(values)}\nsecretBindings:\n  MODEL_API_KEY: { secret: model-key }\n`);
    expect(json(await occ(['configurations', 'create', '-f', file, '-o', 'json'])).secretBindings).toHaveProperty('MODEL_API_KEY');
    const agent = json(await occ(['agents', 'create', 'bot', '--configuration', 'base', '--plugin', PLUGIN, '-o', 'json']));
    // The Agent's own principal must be allowed to use the Secret it is given.
    expect((await occ(['roles', 'create', 'use-secret', '--permission', 'operate:secret'])).code).toBe(0);
    const binding = await occ(['bindings', 'create', '--principal', agent.servicePrincipalId, '--role', 'use-secret', '--resource', 'secret/model-key', '-o', 'json']);
    expect(binding.code, binding.stderr).toBe(0);
    const found = json(await occ(['plugins', 'search', 'llm', '-o', 'json']));
    expect(found.plugins.map((p: { id: string }) => p.id)).toContain(PLUGIN);

    pty = await sampling(runInPty([process.execPath, OCC_BIN, 'deploy', 'bot', '--wait'], env));
    outputs.push(pty.output);
    expect(pty.code, pty.output).toBe(0);
  });

  it('the terminal showed live progress: a spinner, one line per step, the gateway, then the succeeded status', () => {
    expect(pty.output).toMatch(/\u001b\[\?25l/); // the spinner hides the cursor while it runs …
    expect(pty.output).toMatch(/\u001b\[\?25h/); // … and gives it back
    const text = pty.output.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    // The real deploy's events, in the order they happened.
    const order = ['admitted', 'claimed', 'plan', 'verify', 'gateway', 'succeeded'].map((step) => text.indexOf(step));
    expect(
      order.every((at) => at >= 0),
      text,
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toMatch(/REVISION\s+STATE/);
    expect(text).toMatch(/\b1\s+succeeded\b/);
  });

  it('occ send and occ chat talk to the Agent through OCC: the scripted model answers, its key the Secret; chat keeps one conversation', async () => {
    model.enqueue({ kind: 'text', text: 'Hello from the scripted model.' });
    const sent = await occ(['send', 'bot', 'Hello, bot!']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toBe('Hello from the scripted model.\n');
    expect(sent.stderr).toMatch(/^Conversation [A-Za-z0-9_-]{16}: go on with occ send bot --conversation [A-Za-z0-9_-]{16} "…"\n$/);
    const turn = model.completions().at(-1)!;
    expect(turn.headers.authorization).toBe(`Bearer ${CANARY}`);
    expect(JSON.stringify(turn.body)).toContain('Hello, bot!');

    model.enqueue({ kind: 'text', text: 'first answer' }, { kind: 'text', text: 'second answer' });
    const chat = await occ(['chat', 'bot'], { stdin: 'one question\nanother question\n' });
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout).toBe('first answer\nsecond answer\n');
    // One conversation: the second turn carries the first exchange.
    const history = JSON.stringify(model.completions().at(-1)!.body);
    expect(history).toContain('one question');
    expect(history).toContain('first answer');
    expect(history).toContain('another question');
  });

  it('status, the live runtime view, logs, drift, a rollback that sticks, a no-op deploy and a dry run', async () => {
    const status = json(await occ(['status', 'bot', '-o', 'json']));
    expect(status).toMatchObject({ revision: 1, state: 'succeeded', active: true, warnings: [] });
    // The live view: the real runtime, ready, with the Secret delivered by name (never its value).
    expect(json(await occ(['runtime', 'bot', '-o', 'json']))).toMatchObject({ running: true, ready: true, phase: 'ready', deliveredSecrets: ['MODEL_API_KEY'] });
    // What its gateway runs, as the gateway itself said: the selected bundled plugin with its tool, no scheduled job.
    const loaded = json(await occ(['runtime', 'bot', '-o', 'json'])).loaded as { plugins: Array<{ id: string; tools: string[] }>; scheduledJobs: string[] };
    expect(loaded.plugins).toContainEqual({ id: 'llm-task', tools: ['llm-task'] });
    expect(loaded.scheduledJobs).toEqual([]);
    expect((await occ(['runtime', 'bot'])).stdout).toMatch(
      /^REVISION\s+RUNNING\s+READY\s+PHASE\s+RESTARTS\s+LAST FAILURE\s+SECRETS\s+LOADED\s+JOBS\nrev_\S+\s+yes\s+yes\s+ready\s+0\s+-\s+MODEL_API_KEY\s+\S*llm-task\(1 tool\)\S*\s+\(none\)\n$/,
    );
    const logs = await occ(['logs', 'bot', '--tail', '50']);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toContain('gateway');

    // An edit not deployed yet is drift (`occ status` says so); rolling back to the active revision
    // 1 makes the Agent want revision 1 again and admits nothing: it runs already. A plain deploy
    // after it is a no-op too (a rollback sticks). A real new revision costs a real deploy: the
    // scripted compute covers those (apps/controller/test/deploy/rollout-desired-state.test.ts).
    expect((await occ(['agents', 'edit', 'bot', '--remove-plugin', PLUGIN])).code).toBe(0);
    const drifted = await occ(['status', 'bot']);
    expect(drifted.stderr).toContain(`Drift: the Agent differs from active revision 1 (plugins removed: ${PLUGIN}); occ deploy applies it.`);
    const rollback = await occ(['deploy', 'bot', '--from-revision', '1', '-o', 'json']);
    expect(rollback.code, rollback.stderr).toBe(0);
    expect(rollback.stderr).toContain('Nothing changed: revision 1 already runs bot as it is; no revision was admitted. The Agent’s desired state is that revision’s again.');
    const revisions = json(await occ(['revisions', 'list', 'bot', '-o', 'json'])).items;
    expect(revisions.map((r: { revision: number }) => r.revision)).toEqual([1]);
    expect(JSON.parse(rollback.stdout)).toMatchObject({ id: revisions[0].id, revision: 1 });
    expect(Object.keys(json(await occ(['agents', 'get', 'bot', '-o', 'json'])).plugins)).toEqual([PLUGIN]);
    expect((await occ(['status', 'bot'])).stderr).toContain('In sync: revision 1 runs the Agent as it is.');
    const plain = await occ(['deploy', 'bot']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toContain('Nothing changed: revision 1 already runs bot as it is');

    const dryRun = json(await sampling(occ(['deploy', 'bot', '--dry-run', '-o', 'json'])));
    expect(dryRun).toMatchObject({ dryRun: true, revision: { id: null, revision: null }, nativeConfiguration: { status: 'translated', harness: 'openclaw' } });
    expect(json(await occ(['revisions', 'list', 'bot', '-o', 'json'])).items).toHaveLength(1);
  });

  // ---- occ apply -f of a directory, twice (issue 23) ------------------------------------------
  it('occ apply -f of a directory of several kinds creates each object, a second run finds every one unchanged and writes nothing, occ diff -f finds no difference', async () => {
    const team = join(dir, 'team-b');
    mkdirSync(team);
    // One multi-document file of four kinds, the Agent naming its Configuration, which names its Secret.
    writeFileSync(
      join(team, 'bot.yaml'),
      [
        'kind: Namespace',
        'name: team-b',
        '---',
        'kind: Secret',
        'name: model-key',
        'namespace: team-b',
        'fromEnv: TEAM_B_MODEL_KEY',
        '---',
        'kind: Configuration',
        'name: base',
        'namespace: team-b',
        'values:',
        '  gateway: { http: { endpoints: { chatCompletions: { enabled: true } } } }',
        'secretBindings:',
        '  MODEL_API_KEY: { secret: model-key }',
        '---',
        'kind: Agent',
        'name: bot',
        'namespace: team-b',
        'harness: openclaw',
        'configuration: base',
        'plugins:',
        `  ${PLUGIN}: { enabled: true }`,
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(team, 'policy.yaml'),
      'kind: Role\nname: team-b-reader\npermissions:\n  - { action: read, resourceKind: agent }\n---\nkind: Restriction\naction: delete\nresourceKind: agent\nnamespace: team-b\n',
    );
    // The Secret's value comes from the environment: the canary, which no output may show.
    const applyEnv = { ...env, TEAM_B_MODEL_KEY: CANARY };
    const run = async (args: string[]) => {
      const result = await runOcc(args, applyEnv, { timeoutMs: 300_000 });
      outputs.push(result.stdout, result.stderr);
      return result;
    };
    const objects = ['namespace/team-b', 'role/team-b-reader', 'secret/model-key', 'configuration/base', 'agent/bot', 'restriction/delete:agent@team-b'];

    const first = await run(['apply', '-f', team]);
    expect([first.code, first.stdout, first.stderr]).toEqual([0, objects.map((ref) => `${ref} created\n`).join(''), '']);
    const cfg = json(await occ(['configurations', 'get', 'base', '-n', 'team-b', '-o', 'json']));
    const agent = json(await occ(['agents', 'get', 'bot', '-n', 'team-b', '-o', 'json']));
    expect(cfg).toMatchObject({ generation: 1, secretBindings: { MODEL_API_KEY: { secretId: expect.stringMatching(/^sec_/) } } });
    expect(agent).toMatchObject({ configurationId: cfg.id, version: 1, desiredState: 'stopped', plugins: { [PLUGIN]: { enabled: true } } });
    const secret = json(await occ(['secrets', 'get', 'model-key', '-n', 'team-b', '-o', 'json']));
    const audit = async () => json(await occ(['audit', '--limit', '20', '-o', 'json'])).items.map((e: { id: string }) => e.id);
    const audited = await audit();

    const second = await run(['apply', '-f', team]);
    expect([second.code, second.stdout, second.stderr]).toEqual([0, objects.map((ref) => `${ref} unchanged\n`).join(''), '']);
    const diff = await run(['diff', '-f', team]);
    expect([diff.code, diff.stdout, diff.stderr]).toEqual([0, '', '']);
    // Nothing was written: no audit event, no new generation, version or Secret version.
    expect(await audit()).toEqual(audited);
    expect(json(await occ(['configurations', 'get', 'base', '-n', 'team-b', '-o', 'json']))).toEqual(cfg);
    expect(json(await occ(['agents', 'get', 'bot', '-n', 'team-b', '-o', 'json']))).toEqual(agent);
    expect(json(await occ(['secrets', 'get', 'model-key', '-n', 'team-b', '-o', 'json']))).toEqual(secret);
  });

  it('the Secret value and the API key appear in no output, no process argument, and the config file holds the key only', () => {
    const everything = outputs.join('\n');
    expect(everything).not.toContain(CANARY);
    expect(everything).not.toContain(adminKey);
    expect(processSamples.length).toBeGreaterThan(5);
    for (const sample of processSamples) {
      expect(sample).not.toContain(CANARY);
      expect(sample).not.toContain(adminKey);
    }
    const config = readFileSync(configFile, 'utf8');
    expect(config).not.toContain(CANARY);
    expect(JSON.parse(config).contexts.local.apiKey).toBe(adminKey);
    // Nothing else the CLI wrote: only the config file is in its directory.
    expect(readdirSync(join(dir, 'config'))).toEqual(['config.json']);
  });
});
