import { InvalidArgumentError, Option, type Command } from 'commander';
import { humanPointer, RUNTIME_LOG_TAIL_DEFAULT, RUNTIME_LOG_TAIL_MAX, type AgentRevisionView, type DeployDryRun, type RuntimeView } from '@occ/contracts';
import { driftText, followLogTail, type ApiClient } from '@occ/contracts/client';
import { action, type CommandContext } from '../command-context.ts';
import { agentId, looksLikeId, revisionId } from '../context/resolve.ts';
import { deploymentView, outcomeProblem, readAgentDeployment } from '../deploy/deployment-status.ts';
import { withDeploymentFailure } from '../deploy/deployment-history.ts';
import { EXIT_INTERRUPTED, untilInterrupted } from '../deploy/interrupt.ts';
import { createProgressDisplay, progressMode } from '../deploy/progress-display.ts';
import { waitForDeployment } from '../deploy/wait-for-deployment.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { parseSince, selectSince } from '../logs/since.ts';
import { isDataFormat, isTableFormat } from '../output/output-format.ts';
import { noNames, note, printDocument, printOne, type View } from '../output/render.ts';
import { revisionView } from './revisions.ts';
import { example } from '../program.ts';

const stopView: View<{ agentId: string; desiredState: string; workId: string }> = {
  kind: 'agent',
  id: (s) => s.agentId,
  columns: [
    ['agent', (s) => s.agentId],
    ['desired', (s) => s.desiredState],
    ['work', (s) => s.workId],
  ],
};

/** `--from-revision`: a number goes to the API as a number, an id as a string. */
function fromRevision(ref: string): number | string {
  if (/^\d+$/.test(ref) && Number(ref) >= 1) return Number(ref);
  if (looksLikeId('agent_revision', ref)) return ref;
  throw new CliError(`--from-revision is a revision number or id (rev_…); got ${JSON.stringify(ref)}`, EXIT.USAGE);
}

function parseTail(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > RUNTIME_LOG_TAIL_MAX) throw new InvalidArgumentError(`a number of lines from 1 to ${RUNTIME_LOG_TAIL_MAX}`);
  return n;
}

/** A command to type next, with the `-n` the person gave so it works as printed. */
function hint(context: CommandContext, command: string): string {
  return context.options.namespace ? `${command} -n ${context.options.namespace}` : command;
}

/**
 * A dry run prints what it would admit (nothing with --quiet) and exits like the deploy would end
 * as far as the controller can tell: 6 when the runtime would refuse the selections at startup,
 * so a script can gate a deploy on it.
 */
function reportDryRun(dryRun: DeployDryRun, options: CommandContext['options']): number {
  if (!options.quiet) {
    note('Dry run: nothing was admitted. The revision it would admit and the native configuration:', options);
    printDocument(dryRun, options);
  }
  const preview = dryRun.nativeConfiguration;
  if (preview.status !== 'refused') return EXIT.OK;
  process.stderr.write(`The runtime would refuse this revision at startup:\n${preview.violations.map((v) => `  ${humanPointer(v.path)}: ${v.code}`).join('\n')}\n`);
  return EXIT.DEPLOYMENT_FAILED;
}

interface DeployFlags {
  wait?: boolean;
  dryRun?: boolean;
  fromRevision?: string;
  restart?: boolean;
  progress: boolean;
}

async function deploy(context: CommandContext, ref: string, flags: DeployFlags): Promise<number> {
  const { connection, options } = context;
  const client = connection.client;
  const ns = await context.namespace();
  const id = await agentId(client, ns, ref);
  const body = {
    ...(flags.dryRun ? { dryRun: true } : {}),
    ...(flags.fromRevision !== undefined ? { fromRevision: fromRevision(flags.fromRevision) } : {}),
    ...(flags.restart ? { restart: true } : {}),
  };
  const answer = await client.call('deployAgent', { params: { ns, id }, ...(Object.keys(body).length > 0 ? { body } : {}) });
  if (flags.dryRun) return reportDryRun(answer.data as DeployDryRun, options);
  if ('unchanged' in answer.data) {
    const active = answer.data.revision;
    printOne(active, revisionView, options);
    const rolledBack = flags.fromRevision !== undefined ? ' The Agent’s desired state is that revision’s again.' : '';
    note(
      `Nothing changed: revision ${active.revision} already runs ${ref} as it is; no revision was admitted.${rolledBack} To restart it anyway: ${hint(context, `occ deploy ${ref} --restart`)}`,
      options,
    );
    return EXIT.OK;
  }
  const revision = answer.data as AgentRevisionView;
  const status = hint(context, `occ status ${ref} --revision ${revision.revision} --watch`);
  if (!flags.wait) {
    printOne(revision, revisionView, options);
    note(`Revision ${revision.revision} admitted; a worker deploys it. Follow it: ${status}`, options);
    return EXIT.OK;
  }
  note(`Revision ${revision.revision} admitted; following its deployment (Ctrl-C stops following, not the deploy).`, options);
  return follow(context, ns, id, revision, hint(context, `occ status ${ref} --watch`), flags.progress);
}

/**
 * Follows one deployment to its outcome (the live event stream, replayed from its start), then
 * prints its status: exit 0 when it succeeded, 6 when it did not, 130 on Ctrl-C (the deploy goes
 * on; `again` is the command that re-attaches).
 */
async function follow(context: CommandContext, ns: string, id: string, revision: Pick<AgentRevisionView, 'id' | 'revision'>, again: string, progress: boolean): Promise<number> {
  const {
    connection: { client },
    options,
  } = context;
  const mode = progressMode({ isTTY: process.stderr.isTTY, columns: process.stderr.columns, progress, quiet: options.quiet, term: process.env.TERM });
  const result = await untilInterrupted((signal) => waitForDeployment(client, { ns, agentId: id, revisionId: revision.id }, createProgressDisplay(mode), signal));
  if (result.kind === 'aborted') {
    process.stderr.write(`Stopped following; the deploy goes on. Follow it again: ${again}\n`);
    return EXIT_INTERRUPTED;
  }
  const outcome = await readAgentDeployment(client, ns, id, revision.id);
  printOne(outcome.status, deploymentView(outcome), options);
  // The status is read after the outcome event, from the same rows: it agrees with it.
  if (outcome.status.state === 'succeeded') return EXIT.OK;
  process.stderr.write(`${outcomeProblem(outcome.status).join('\n')}\n`);
  return EXIT.DEPLOYMENT_FAILED;
}

async function status(context: CommandContext, ref: string, flags: { revision: string; watch?: boolean; progress: boolean }): Promise<number> {
  const client = context.connection.client;
  const ns = await context.namespace();
  const id = await agentId(client, ns, ref);
  const rev = await revisionId(client, ns, id, flags.revision);
  if (flags.watch) {
    // Re-attach to a deploy (after Ctrl-C, or one started elsewhere): the same follow as deploy --wait.
    const watched = (await client.call('getAgentRevision', { params: { ns, id, rev } })).data;
    const again = hint(context, `occ status ${ref} --revision ${watched.revision} --watch`);
    note(`Following the deployment of revision ${watched.revision} (Ctrl-C stops following, not the deploy).`, context.options);
    return follow(context, ns, id, watched, again, flags.progress);
  }
  const deployment = await readAgentDeployment(client, ns, id, rev);
  printOne(deployment.status, deploymentView(deployment), context.options);
  if (!isTableFormat(context.options.output)) return EXIT.OK;
  if (deployment.status.error) note(`error: ${deployment.status.error.code}: ${deployment.status.error.message}`, context.options);
  note(driftText((await client.call('getAgentDrift', { params: { ns, id } })).data, 'occ deploy'), context.options);
  return EXIT.OK;
}

/** Which revision's logs: the one named, else the active one, else the newest. */
async function logsRevision(client: ApiClient, ns: string, id: string, ref: string | undefined): Promise<string> {
  if (ref !== undefined) return revisionId(client, ns, id, ref);
  const agent = (await client.call('getAgent', { params: { ns, id } })).data;
  return agent.activeRevisionId ?? revisionId(client, ns, id, 'latest');
}

interface LogsFlags {
  revision?: string;
  /** Absent: the default tail, or with --since every line since then. */
  tail?: number;
  follow?: boolean;
  /** --since, as the earliest time to show (ms). */
  since?: number;
}

async function logs(context: CommandContext, ref: string, flags: LogsFlags): Promise<void> {
  const { options } = context;
  if (options.output === 'name') throw noNames('a log is lines, not resources');
  if (flags.follow && isDataFormat(options.output)) throw new CliError('-f prints the lines as they come; -o json|yaml reads one tail without -f', EXIT.USAGE);
  const client = context.connection.client;
  const ns = await context.namespace();
  const id = await agentId(client, ns, ref);
  const rev = await logsRevision(client, ns, id, flags.revision);
  const read = async (tail: number, signal?: AbortSignal) =>
    (await client.call('getRuntimeLogs', { params: { ns, id, rev }, query: { tail }, ...(signal ? { signal } : {}) })).data;
  const print = (line: string) => void process.stdout.write(`${line}\n`);
  const tail = flags.tail ?? RUNTIME_LOG_TAIL_DEFAULT;
  // --since filters the widest window the API answers, by the times the lines carry (logs/since.ts).
  const since = (window: { lines: string[]; truncated: boolean }, at: number) => {
    const selected = selectSince(window, at, flags.tail);
    if (selected.warning) note(selected.warning, options);
    return selected;
  };
  if (!flags.follow) {
    const shown = flags.since === undefined ? await read(tail) : since(await read(RUNTIME_LOG_TAIL_MAX), flags.since);
    if (isDataFormat(options.output)) return printDocument({ lines: shown.lines, truncated: shown.truncated }, options);
    shown.lines.forEach(print);
    return;
  }
  // Following compares whole windows of the same size, so the overlap of two reads is found
  // even when many lines arrive between polls; only the last --tail lines are shown first.
  const first = await read(RUNTIME_LOG_TAIL_MAX);
  (flags.since === undefined ? first.lines.slice(-tail) : since(first, flags.since).lines).forEach(print);
  await untilInterrupted((signal) =>
    followLogTail({ read: async (s) => (await read(RUNTIME_LOG_TAIL_MAX, s)).lines, onLines: (lines) => lines.forEach(print), seen: first.lines, signal }),
  );
}

const runtimeView: View<RuntimeView> = {
  kind: 'runtime',
  id: (r) => r.revisionId,
  wide: [
    ['startup', (r) => r.startupId],
    ['observed', (r) => r.observedAt],
    ['core tools', (r) => r.loaded?.coreTools.length],
  ],
  columns: [
    ['revision', (r) => r.revisionId],
    ['running', (r) => (r.running ? 'yes' : 'no')],
    ['ready', (r) => (r.ready ? 'yes' : 'no')],
    ['phase', (r) => r.phase],
    ['restarts', (r) => r.restarts],
    ['last failure', (r) => r.lastFailureCode],
    ['secrets', (r) => (r.deliveredSecrets === null ? '(withheld)' : r.deliveredSecrets.join(','))],
    // What the gateway said it runs (-o json/yaml for every tool): plugins with how many tools they give the agent, and scheduled jobs.
    [
      'loaded',
      (r) =>
        r.loaded === null
          ? null
          : r.loaded.plugins.map((p) => (p.tools.length > 0 ? `${p.id}(${p.tools.length} tool${p.tools.length === 1 ? '' : 's'})` : p.id)).join(',') || '(none)',
    ],
    ['jobs', (r) => (r.loaded === null ? null : r.loaded.scheduledJobs.join(',') || '(none)')],
  ],
};

/** What runs for a revision now, read live from the ComputeDriver (the deployment status is the recorded result). */
async function runtime(context: CommandContext, ref: string, flags: { revision?: string }): Promise<void> {
  const client = context.connection.client;
  const ns = await context.namespace();
  const id = await agentId(client, ns, ref);
  const rev = await logsRevision(client, ns, id, flags.revision);
  const view = (await client.call('getRuntimeView', { params: { ns, id, rev } })).data;
  printOne(await withDeploymentFailure(client, { ns, agentId: id, revisionId: rev }, view), runtimeView, context.options);
}

export function registerDeployCommands(program: Command): void {
  example(
    program
      .command('deploy')
      .argument('<agent>', 'name or id')
      .description(
        "Admit the Agent's desired state as a new revision and deploy it (nothing happens when the active revision already runs it); --wait follows the deployment to its outcome (exit 6 if it does not become active).",
      )
      .addOption(new Option('--wait', 'follow the deployment until it succeeds or fails, then print its status'))
      .addOption(new Option('--dry-run', 'run every admission check and show the revision and native configuration it would admit; nothing is written').conflicts(['wait']))
      .addOption(new Option('--from-revision <revision>', "roll back: the Agent's desired state becomes this older revision's (number or id), deployed as a new revision"))
      .addOption(new Option('--restart', 'admit a new revision even when nothing changed (the runtime restarts); without it such a deploy is a no-op').conflicts(['dryRun']))
      .addOption(new Option('--no-progress', 'with --wait: plain lines instead of a spinner, even on a terminal')),
    'occ deploy support-bot --wait',
    'occ deploy support-bot --dry-run -o json',
    'occ deploy support-bot --from-revision 3 --wait',
  ).action(action<DeployFlags>(async (context, [ref], flags) => deploy(context, ref!, flags)));

  example(
    program
      .command('stop')
      .argument('<agent>', 'name or id')
      .description('Stop the Agent: its desired state becomes stopped and a worker stops its runtime and clears the active revision.'),
    'occ stop support-bot',
  ).action(
    action(async (context, [ref]) => {
      const client = context.connection.client;
      const ns = await context.namespace();
      const result = (await client.call('stopAgent', { params: { ns, id: await agentId(client, ns, ref!) } })).data;
      printOne(result, stopView, context.options);
      note(`Stopping ${ref}; deploy it again to run it.`, context.options);
    }),
  );

  example(
    program
      .command('status')
      .argument('<agent>', 'name or id')
      .description("The Agent's desired state and active revision, and the deployment status of a revision (-o json|yaml: the deployment status).")
      .addOption(new Option('--revision <revision>', 'a revision number, latest or an id').default('latest'))
      .addOption(new Option('--watch', "follow the revision's deployment until it succeeds or fails, as deploy --wait does (exit 6 if it does not become active)"))
      .addOption(new Option('--no-progress', 'with --watch: plain lines instead of a spinner, even on a terminal')),
    'occ status support-bot',
    'occ status support-bot --revision 2 -o json',
    'occ status support-bot --watch',
  ).action(action<{ revision: string; watch?: boolean; progress: boolean }>(async (context, [ref], flags) => status(context, ref!, flags)));

  example(
    program
      .command('runtime')
      .argument('<agent>', 'name or id')
      .description('What runs for a revision now, read live (default: the active revision, else the newest): running, ready, phase, restarts, delivered Secret names.')
      .addOption(new Option('--revision <revision>', 'a revision number, latest or an id')),
    'occ runtime support-bot',
    'occ runtime support-bot --revision 1 -o json',
  ).action(action<{ revision?: string }>(async (context, [ref], flags) => runtime(context, ref!, flags)));

  example(
    program
      .command('logs')
      .argument('<agent>', 'name or id')
      .description("The last lines of a revision's runtime log (default: the active revision, else the newest); -f keeps printing new lines.")
      .addOption(new Option('--revision <revision>', 'a revision number, latest or an id'))
      .addOption(
        new Option('--tail <lines>', `how many of the last lines (1–${RUNTIME_LOG_TAIL_MAX}; default ${RUNTIME_LOG_TAIL_DEFAULT}, with --since all since then)`).argParser(
          parseTail,
        ),
      )
      .addOption(
        new Option(
          '--since <duration|time>',
          `only lines written since then: 10m, 1h30m, 2d, or 2026-12-03T09:00:00Z (by the time each line carries; within the last ${RUNTIME_LOG_TAIL_MAX} lines)`,
        ).argParser((value) => parseSince(value)),
      )
      .addOption(new Option('-f, --follow', 'poll every 2 s and print new lines until Ctrl-C')),
    'occ logs support-bot --tail 50',
    'occ logs support-bot --since 10m',
    'occ logs support-bot -f',
  ).action(action<LogsFlags>(async (context, [ref], flags) => logs(context, ref!, flags)));
}
