import { spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRevision } from '@occ/contracts';
import { OCC_BIN, startCliWorld, type CliWorld } from '../../../../test-support/cli-world.ts';
import { admit, newDeployTarget, PLUGIN, sleep, storePluginsUnchecked, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { createScriptedCompute, type PrepareStep } from '../../../../test-support/scripted-compute.ts';
import type { ComputeDriver, RuntimeProgress } from '../../../../apps/controller/src/core/ports/compute-driver.ts';

const SECOND_PLUGIN = 'diffs';

/**
 * The scripted compute (ready at once unless an Agent is scripted otherwise): the typed startup
 * progress a runtime's status reports for the Agents that report steps (so the event stream
 * carries steps), and a runtime log per revision with whatever a test appends.
 */
function computeWithLogs() {
  const behaviour = new Map<string, PrepareStep>();
  const reportsSteps = new Set<string>();
  const appended = new Map<string, string[]>();
  // The typed startup progress a real runtime's status reports (the deployment's events are made of it).
  const startupProgress = (revisionId: string, at: string): RuntimeProgress => ({
    startupId: `startup-${revisionId.slice(4, 20)}`,
    steps: [
      { at, step: 'plan' },
      { at, step: 'write-config' },
      { at, step: 'install', pluginId: PLUGIN, result: 'rejected' },
      { at, step: 'install', pluginId: SECOND_PLUGIN, result: 'done' },
      { at, step: 'registry-refresh' },
      { at, step: 'verify-installs' },
      { at, step: 'gateway' },
    ],
  });
  const base = createScriptedCompute({
    prepare: (revision) => {
      const step = behaviour.get(revision.agentId) ?? {};
      return reportsSteps.has(revision.agentId) ? { ...step, progress: startupProgress(revision.id, new Date().toISOString()) } : step;
    },
  });
  const compute: ComputeDriver = {
    ...base,
    async readLogs(_agent, revisionId, { tail }) {
      const lines = [`runtime ${revisionId} started`, ...(appended.get(revisionId) ?? [])];
      return { lines: lines.slice(-tail), truncated: lines.length > tail };
    },
  };
  return { compute, behaviour, reportsSteps, append: (revisionId: string, ...lines: string[]) => appended.set(revisionId, [...(appended.get(revisionId) ?? []), ...lines]) };
}

/** A child this test can signal (Ctrl-C), with what it printed so far. */
function startChild(command: string, args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => (out.stdout += chunk));
  child.stderr.on('data', (chunk) => (out.stderr += chunk));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const until = (what: string, done: () => boolean) => waitFor(what, async () => ({ ...out }), done, 20_000, 50);
  return { child, out, exit, until };
}

const occEnv = (world: CliWorld): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: world.home, OCC_CONFIG: world.configFile, NO_COLOR: '1' });
const startOcc = (world: CliWorld, args: string[]) => startChild(process.execPath, [OCC_BIN, ...args], occEnv(world));

const tableRows = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));
const hasScript = spawnSync('script', ['--version']).status === 0;

describe('occ deploy, stop, status, logs', () => {
  let world: CliWorld;
  let logs: ReturnType<typeof computeWithLogs>;
  /** Deployed with --wait: steps in its log, a warning for PLUGIN. */
  let bot: DeployTarget & { name: string };

  const target = async (plugins: Record<string, unknown> = { [PLUGIN]: { enabled: true } }) => {
    const created = await newDeployTarget(world.controller, { plugins });
    const agent = await world.controller.request({ method: 'GET', url: created.url });
    return { ...created, name: agent.body.data.name as string };
  };
  const revisions = async (t: DeployTarget): Promise<AgentRevision[]> => (await world.controller.request({ method: 'GET', url: `${t.url}/revisions` })).body.data.items;

  beforeAll(async () => {
    logs = computeWithLogs();
    world = await startCliWorld({ worker: {}, compute: logs.compute, work: { maxAttempts: 2 } });
    bot = await target();
    // `diffs` is not in the curated catalog: an Agent saved before saving checked it.
    await storePluginsUnchecked(world.controller, bot, { [PLUGIN]: { enabled: true }, [SECOND_PLUGIN]: { enabled: true } });
    logs.reportsSteps.add(bot.agentId);
    logs.behaviour.set(bot.agentId, { warnings: [{ pluginId: PLUGIN, code: 'PLUGIN_INSTALL_FAILED' }] });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('deploy --wait: progress lines on stderr (no escape codes off a terminal), the status as JSON on stdout, exit 0', async () => {
    const run = await world.occ(['deploy', bot.name, '--wait', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const status = JSON.parse(run.stdout);
    expect(status).toMatchObject({
      agentId: bot.agentId,
      revision: 1,
      state: 'succeeded',
      reasonCode: 'REVISION_ACTIVATED',
      active: true,
      warnings: [{ pluginId: PLUGIN, code: 'PLUGIN_INSTALL_FAILED' }],
    });
    expect(run.stderr).not.toMatch(/\x1b/);
    const progress = run.stderr
      .split('\n')
      .filter((line) => /^\s+\d+\.\d+s {2}/.test(line))
      .map((line) => line.replace(/^\s+\d+\.\d+s {2}/, ''));
    expect(progress).toEqual([
      'admitted   revision 1 admitted',
      'claimed    claimed by a worker',
      'plan       planned the plugins',
      'plan       wrote the configuration',
      `install    ${PLUGIN}: rejected by the installer`,
      `install    ${SECOND_PLUGIN}: installed`,
      'refresh    refreshed the plugin registry',
      'verify     verified the installed plugins',
      'gateway    gateway started',
      `warning    ${PLUGIN} could not be installed; the Agent runs without it (PLUGIN_INSTALL_FAILED)`,
      'succeeded  the revision is active (REVISION_ACTIVATED)',
    ]);
  });

  it('a deploy that fails exits 6 and prints its reason code and the error', async () => {
    const failing = await target();
    logs.behaviour.set(failing.agentId, { runtimeFailure: { code: 'PLUGIN_VERIFICATION_FAILED', message: 'the installed plugin does not match its integrity' } });
    const run = await world.occ(['deploy', failing.name, '--wait', '--no-progress']);
    expect(run.code, run.stderr).toBe(6);
    const [header, row] = tableRows(run.stdout);
    expect(header).toEqual(['AGENT', 'DESIRED', 'ACTIVE REVISION', 'REVISION', 'STATE', 'REASON', 'ATTEMPTS', 'ACTIVE', 'WARNINGS']);
    expect(row).toEqual([failing.name, 'running', '-', '1', 'failed', 'PLUGIN_VERIFICATION_FAILED', '2', 'no', '-']);
    expect(run.stderr).toMatch(/claimed +attempt 2 \(a retry\) claimed by a worker/);
    expect(run.stderr).toContain('error: the deployment of revision 1 failed: PLUGIN_VERIFICATION_FAILED');
    // The status's error: its code and the controller's fixed message for it (never the runtime's own text).
    expect(run.stderr).toContain('  PLUGIN_VERIFICATION_FAILED: The runtime did not start (PLUGIN_VERIFICATION_FAILED).');
  });

  it('--dry-run prints what it would admit and admits nothing; --dry-run --wait is a usage error', async () => {
    const before = await revisions(bot);
    const run = await world.occ(['deploy', bot.name, '--dry-run', '-o', 'json']);
    // `diffs` is in the test catalog, not in the curated one the controller previews with.
    expect(run.code, run.stderr).toBe(6);
    expect(run.stderr).toContain(`  /plugins/${SECOND_PLUGIN}`);
    const answer = JSON.parse(run.stdout);
    expect(answer).toMatchObject({ dryRun: true, revision: { id: null, revision: null, agentId: bot.agentId }, nativeConfiguration: { harness: 'openclaw' } });
    expect(Object.keys(answer.revision.plugins).sort()).toEqual([SECOND_PLUGIN, PLUGIN].sort());
    expect(await revisions(bot)).toEqual(before);
    expect((await world.occ(['deploy', bot.name, '--dry-run', '--wait'])).code).toBe(2);
  });

  it('a dry run exits 0 when the runtime would take it and 6 with the pointers when it would refuse it; --quiet prints nothing', async () => {
    const good = await newDeployTarget(world.controller, { plugins: { 'openclaw:llm-task': { enabled: true } } });
    const accepted = await world.occ(['deploy', good.agentId, '--dry-run', '-o', 'json']);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(JSON.parse(accepted.stdout).nativeConfiguration.status).toBe('translated');
    const unknown = await newDeployTarget(world.controller);
    await storePluginsUnchecked(world.controller, unknown, { 'openclaw:no-such-plugin': { enabled: true } });
    const run = await world.occ(['deploy', unknown.agentId, '--dry-run', '-o', 'json']);
    expect(run.code).toBe(6);
    expect(JSON.parse(run.stdout).nativeConfiguration.status).toBe('refused');
    expect(run.stderr).toMatch(/The runtime would refuse this revision at startup:\n {2}\/plugins\/openclaw:no-such-plugin\S*: [A-Z_]+\n/);
    const quiet = await world.occ(['deploy', unknown.agentId, '--dry-run', '-q']);
    expect(quiet.code).toBe(6);
    expect(quiet.stdout).toBe('');
  });

  it("--from-revision 1 admits a new revision with revision 1's plugins (a table and a note without --wait)", async () => {
    // Revision 2 selects one plugin only, so revision 3 can only have its two from revision 1.
    const patched = await world.controller.request({ method: 'PATCH', url: bot.url, body: { plugins: { [PLUGIN]: { enabled: true } } } });
    expect(patched.status).toBe(200);
    // occ agents get says what a plain deploy would change (as occ status does), on stderr.
    const drifted = await world.occ(['agents', 'get', bot.name]);
    expect(drifted.stderr).toBe(`Drift: the Agent differs from active revision 1 (plugins removed: ${SECOND_PLUGIN}); occ deploy applies it.\n`);
    expect((await world.occ(['agents', 'get', bot.name, '-o', 'json'])).stderr).toBe('');
    const second = await admit(world.controller, bot);
    await waitTerminal(world.controller, bot, second.id);
    const run = await world.occ(['deploy', bot.name, '--from-revision', '1']);
    expect(run.code, run.stderr).toBe(0);
    const [header, row] = tableRows(run.stdout);
    expect(header).toEqual(['REVISION', 'ID', 'HARNESS', 'PLUGINS', 'CONFIGURATION', 'AGE']);
    const [third, , first] = await revisions(bot);
    expect(row!.slice(0, 3)).toEqual(['3', third!.id, 'openclaw']);
    expect(row![3]!.split(',').sort()).toEqual(Object.keys(first!.plugins).sort());
    expect(third!.plugins).toEqual(first!.plugins);
    expect(run.stderr).toContain(`Follow it: occ status ${bot.name} --revision 3 --watch`);
    expect((await waitTerminal(world.controller, bot, third!.id)).state).toBe('succeeded');

    // The rollback sticks: the Agent wants revision 1's plugins now, so a plain deploy has nothing to change.
    expect((await world.controller.request({ method: 'GET', url: bot.url })).body.data.plugins).toEqual(first!.plugins);
    expect((await world.occ(['agents', 'get', bot.name])).stderr).toBe('In sync: revision 3 runs the Agent as it is.\n');
    const plain = await world.occ(['deploy', bot.name]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toContain(`Nothing changed: revision 3 already runs ${bot.name} as it is`);
    expect(await revisions(bot)).toHaveLength(3);
  });

  it("status: the latest revision by default as a table, any revision as the API's data with -o json", async () => {
    const table = await world.occ(['status', bot.name]);
    expect(table.code, table.stderr).toBe(0);
    expect(tableRows(table.stdout)[1]).toEqual([bot.name, 'running', '3', '3', 'succeeded', 'REVISION_ACTIVATED', '1', 'yes', `${PLUGIN} PLUGIN_INSTALL_FAILED`]);
    const first = await world.occ(['status', bot.name, '--revision', '1', '-o', 'json']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ revision: 1, state: 'succeeded', active: false });
    const missing = await world.occ(['status', bot.name, '--revision', '9']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('The Agent has no revision 9');
  });

  it("logs: the active revision's last lines as they are; --revision picks another", async () => {
    const [active, , first] = await revisions(bot);
    logs.append(active!.id, 'line one', 'line two');
    const tail = await world.occ(['logs', bot.name, '--tail', '2']);
    expect(tail.code, tail.stderr).toBe(0);
    expect(tail.stdout).toBe('line one\nline two\n');
    logs.append(first!.id, 'revision 1 line');
    const other = await world.occ(['logs', bot.name, '--revision', '1', '--tail', '1', '-o', 'json']);
    expect(other.code, other.stderr).toBe(0);
    expect(JSON.parse(other.stdout)).toEqual({ lines: ['revision 1 line'], truncated: true });
    expect((await world.occ(['logs', bot.name, '--tail', '0'])).code).toBe(2);
  });

  it('logs -f prints each new line once and exits 0 on Ctrl-C', async () => {
    const [active] = await revisions(bot);
    const follow = startOcc(world, ['logs', bot.name, '-f', '--tail', '1']);
    await follow.until('the first tail', () => follow.out.stdout === 'line two\n');
    // A line equal to one already shown is new all the same.
    logs.append(active!.id, 'line three', 'line two');
    await follow.until('the new lines', () => follow.out.stdout.endsWith('line three\nline two\n'));
    await sleep(2300); // one more poll: nothing new, nothing printed again
    follow.child.kill('SIGINT');
    expect(await follow.exit).toBe(0);
    expect(follow.out.stdout).toBe('line two\nline three\nline two\n');
  });

  it('Ctrl-C while waiting stops following, says the deploy goes on, exits 130; occ status --watch re-attaches and follows it to its outcome', async () => {
    const slow = await target();
    logs.behaviour.set(slow.agentId, { ready: false, pendingReason: 'RUNTIME_STARTING' });
    const wait = startOcc(world, ['deploy', slow.name, '--wait']);
    await wait.until('the claim', () => /claimed by a worker/.test(wait.out.stderr));
    wait.child.kill('SIGINT');
    expect(await wait.exit).toBe(130);
    expect(wait.out.stderr).toContain(`Stopped following; the deploy goes on. Follow it again: occ status ${slow.name} --watch`);
    const [revision] = await revisions(slow);
    const status = (await world.controller.request({ method: 'GET', url: `${slow.url}/deployments/${revision!.id}` })).body.data;
    expect(['queued', 'running']).toContain(status.state);

    // Re-attaching: `occ status --watch` follows the same deployment from its start to its outcome.
    const watch = startOcc(world, ['status', slow.name, '--watch', '--no-progress', '-o', 'json']);
    await watch.until('the replayed claim', () => /claimed by a worker/.test(watch.out.stderr));
    logs.behaviour.set(slow.agentId, {});
    expect(await watch.exit, watch.out.stderr).toBe(0);
    expect(watch.out.stderr).toContain('Following the deployment of revision 1 (Ctrl-C stops following, not the deploy).');
    expect(watch.out.stderr).toMatch(/admitted +revision 1 admitted/);
    expect(JSON.parse(watch.out.stdout)).toMatchObject({ revision: 1, state: 'succeeded', active: true });
    // Once it has ended, --watch prints the outcome at once; a failed one exits 6 like deploy --wait.
    const again = await world.occ(['status', slow.name, '--watch', '--no-progress']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/succeeded +the revision is active \(REVISION_ACTIVATED\)/);
  });

  it.skipIf(!hasScript)('on a terminal: an ora spinner with the current activity, each finished step kept as a line; Ctrl-C there too', async () => {
    // `script` runs occ on a pseudo-terminal (asynchronously: this process serves the API), sized
    // like a window: a terminal of 0 columns gets plain lines (a spinner cannot measure its line there).
    const onTerminal = (name: string) =>
      startChild('script', ['-qec', `stty cols 100 rows 30; ${[process.execPath, OCC_BIN, 'deploy', name, '--wait'].map((word) => `'${word}'`).join(' ')}`, '/dev/null'], {
        ...occEnv(world),
        NO_COLOR: undefined,
        TERM: 'xterm',
      });
    const done = onTerminal((await target()).name);
    done.child.stdin.end();
    expect(await done.exit, done.out.stdout).toBe(0);
    const screen = done.out.stdout;
    expect(screen).toContain('\x1b[?25l'); // the spinner hid the cursor …
    expect(screen).toContain('\x1b[?25h'); // … and gave it back
    expect(screen).toContain('waiting for a worker'); // its text after `admitted`
    expect(screen).toMatch(/succeeded +the revision is active \(REVISION_ACTIVATED\)/);

    // Ctrl-C typed on the terminal: the terminal stays in cooked mode, so it is SIGINT.
    const slow = await target();
    logs.behaviour.set(slow.agentId, { ready: false, pendingReason: 'RUNTIME_STARTING' });
    const waiting = onTerminal(slow.name);
    await waiting.until('the claim', () => /claimed by a worker/.test(waiting.out.stdout));
    waiting.child.stdin.write('\x03');
    waiting.child.stdin.end();
    expect(await waiting.exit).toBe(130);
    expect(waiting.out.stdout).toContain('Stopped following; the deploy goes on.');
    expect(waiting.out.stdout.lastIndexOf('\x1b[?25h')).toBeGreaterThan(waiting.out.stdout.lastIndexOf('\x1b[?25l'));
  });

  it('stop: the desired state becomes stopped and the worker clears the active revision', async () => {
    const run = await world.occ(['stop', bot.name, '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ agentId: bot.agentId, desiredState: 'stopped' });
    const agent = await waitFor(
      'the pointer to clear',
      async () => (await world.controller.request({ method: 'GET', url: bot.url })).body.data,
      (a) => a.activeRevisionId === null,
    );
    expect(agent.desiredState).toBe('stopped');
  });

  it("logs from a ComputeDriver that keeps none: the API's 501, exit 1", async () => {
    delete (logs.compute as { readLogs?: unknown }).readLogs;
    const run = await world.occ(['logs', bot.name]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: NOT_IMPLEMENTED: The ComputeDriver keeps no runtime logs.');
  });
});
