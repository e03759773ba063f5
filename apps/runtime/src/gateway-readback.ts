import { isJsonObject, type LoadedRuntime } from '@occ/contracts';
import { normalizeNativeName } from '@occ/policy';
import { StartupFailure } from './failure.ts';
import { logEvent } from './log.ts';
import { parseJsonOutput } from './openclaw-cli.ts';
import type { CommandOptions, GatewayReadMethod, OpenClawCommands } from './openclaw-commands.ts';

/** What the runtime lets the serving gateway have: plugins that may give tools, scheduled work the Configuration asked for. */
export interface ReadBackRules {
  /** OpenClaw plugin ids that may give the agent tools (selected, or turned on by the Configuration itself). */
  toolPlugins: ReadonlySet<string>;
  /** Declaration prefixes (`heartbeat:`, a plugin's id…) of the scheduled jobs OpenClaw may declare by itself. */
  declaredJobs: ReadonlySet<string>;
}

/**
 * The scheduled jobs OpenClaw declares by itself that `config` (the revision's, with the runtime
 * settings) asks for: the heartbeat when some agent's heartbeat cadence is not `0m`, the weekly
 * skill review when self-learning is `auto`, and whatever a plugin in `plugins` declares under its id.
 */
export function declaredJobsAskedFor(config: Record<string, unknown>, plugins: Iterable<string>): Set<string> {
  const asked = new Set([...plugins].map((pluginId) => `${pluginId}:`));
  const agents = isJsonObject(config.agents) ? config.agents : {};
  const heartbeats = [agents.defaults, ...(Array.isArray(agents.list) ? agents.list : [])].map((agent) =>
    isJsonObject(agent) && isJsonObject(agent.heartbeat) ? agent.heartbeat.every : undefined,
  );
  if (heartbeats.some((every) => every !== undefined && every !== '0m')) asked.add('heartbeat:');
  const workshop = isJsonObject(config.skills) && isJsonObject(config.skills.workshop) ? config.skills.workshop : {};
  if (isJsonObject(workshop.autonomous) && workshop.autonomous.mode === 'auto') asked.add('skill-collection-review:');
  return asked;
}

/** `tools.catalog`'s answer (`{ groups: [{ source: core|plugin, pluginId?, tools: [{ id }] }] }`); null when it is not that shape. */
interface ToolsCatalog {
  core: string[];
  plugins: Record<string, string[]>;
}
interface ScheduledJob {
  declarationKey: string | null;
  name: string;
}

function parseToolsCatalog(value: unknown): ToolsCatalog | null {
  if (!isJsonObject(value) || !Array.isArray(value.groups)) return null;
  const loaded = { core: [] as string[], plugins: {} as Record<string, string[]> };
  for (const group of value.groups) {
    if (!isJsonObject(group) || !Array.isArray(group.tools)) return null;
    const ids = group.tools.map((tool) => (isJsonObject(tool) && typeof tool.id === 'string' ? tool.id : null));
    if (ids.some((id) => id === null)) return null;
    if (group.source === 'plugin' && typeof group.pluginId === 'string') loaded.plugins[group.pluginId] = [...(loaded.plugins[group.pluginId] ?? []), ...(ids as string[])];
    else loaded.core.push(...(ids as string[]));
  }
  return loaded;
}

/** `plugins.list`'s answer: the ids of the plugins that run (loaded, or loaded with a failed service); null when not that shape. */
function parseRunningPlugins(value: unknown): string[] | null {
  if (!isJsonObject(value) || !Array.isArray(value.plugins)) return null;
  const running: string[] = [];
  for (const plugin of value.plugins) {
    if (!isJsonObject(plugin) || typeof plugin.id !== 'string' || !isJsonObject(plugin.runtime)) return null;
    if (plugin.runtime.state === 'active' || plugin.runtime.state === 'service-failed') running.push(plugin.id);
  }
  return running;
}

/** `cron.list`'s answer (enabled jobs): each job's declaration key (null: created through the gateway) and name; null when not that shape. */
function parseScheduledJobs(value: unknown): ScheduledJob[] | null {
  if (!isJsonObject(value) || !Array.isArray(value.jobs)) return null;
  const jobs: Array<{ declarationKey: string | null; name: string }> = [];
  for (const job of value.jobs) {
    if (!isJsonObject(job) || typeof job.name !== 'string') return null;
    if (job.enabled === false) continue;
    jobs.push({ declarationKey: typeof job.declarationKey === 'string' && job.declarationKey !== '' ? job.declarationKey : null, name: job.name });
  }
  return jobs;
}

/**
 * Reads back from the serving gateway what it runs: every plugin (with the tools it gives the
 * agent, none for providers and channels), OpenClaw's own tools, and its enabled scheduled jobs.
 * Fails the startup with a code naming the culprit when a plugin with tools is neither selected nor
 * turned on by the Configuration (PLUGIN_NOT_SELECTED), or OpenClaw or a plugin scheduled work by
 * itself that the Configuration did not ask for (BACKGROUND_JOB_NOT_CONFIGURED): whatever put it
 * there bypassed every check before readiness. Logs what it read (`gateway.loaded`).
 */
export async function readBackGateway(
  cli: OpenClawCommands,
  gateway: { port: number; token: string },
  rules: ReadBackRules,
  options: CommandOptions & { deadlineMs: number },
): Promise<LoadedRuntime> {
  // The gateway accepts connections before it answers calls, and a loaded machine answers late:
  // a read that got no answer is asked again until the deadline; an answer of the wrong shape will not improve.
  const answers = await readUntilAnswered(cli, gateway, Date.now() + options.deadlineMs, options);
  const tools = answers.tools;
  const running = answers.plugins;
  const jobs = answers.jobs;

  const toolsOf = tools.plugins;
  // Bounded as the startup status contract bounds it (a job's name is whoever created it's text):
  // a status outside its schema would never be trusted, and the revision never ready.
  const loaded: LoadedRuntime = {
    plugins: [...new Set([...running, ...Object.keys(toolsOf)])]
      .filter(Boolean)
      .sort()
      .slice(0, 512)
      .map((id) => ({ id: id.slice(0, 128), tools: named(toolsOf[id] ?? [], 256) })),
    coreTools: named(tools.core, 512),
    scheduledJobs: jobs
      .map((job) => job.name.slice(0, 256) || '(unnamed)')
      .sort()
      .slice(0, 256),
  };
  logEvent('gateway.loaded', {
    plugins: loaded.plugins.map((plugin) => (plugin.tools.length > 0 ? `${plugin.id}: ${plugin.tools.join(' ')}` : plugin.id)),
    core: loaded.coreTools,
    jobs: loaded.scheduledJobs,
  });

  const unselected = loaded.plugins.filter((plugin) => plugin.tools.length > 0 && !rules.toolPlugins.has(normalizeNativeName(plugin.id))).map((plugin) => plugin.id);
  if (unselected.length > 0) {
    logEvent('gateway.tools.unselected', { pluginIds: unselected });
    throw new StartupFailure('PLUGIN_NOT_SELECTED', `The gateway loaded plugin ${unselected.join(', ')} with tools, which no selection names.`.slice(0, 256));
  }
  const unasked = jobs.filter((job) => job.declarationKey !== null && ![...rules.declaredJobs].some((prefix) => job.declarationKey!.startsWith(prefix))).map((job) => job.name);
  if (unasked.length > 0) {
    logEvent('gateway.jobs.unconfigured', { jobs: unasked });
    throw new StartupFailure('BACKGROUND_JOB_NOT_CONFIGURED', `The gateway scheduled ${unasked.join(', ')} by itself; the Configuration does not ask for it.`.slice(0, 256));
  }
  return loaded;
}

/** Each read method and how its answer is parsed (null: an answer of the wrong shape). */
const READS = {
  'tools.catalog': parseToolsCatalog,
  'plugins.list': parseRunningPlugins,
  'cron.list': parseScheduledJobs,
} as const satisfies Record<GatewayReadMethod, (value: unknown) => unknown>;

/**
 * Asks the gateway every read in one process, then again only what it did not answer yet, once a
 * second until `deadline`. An answer of the wrong shape fails at once: it will not improve.
 */
async function readUntilAnswered(
  cli: OpenClawCommands,
  gateway: { port: number; token: string },
  deadline: number,
  options: CommandOptions,
): Promise<{ tools: ToolsCatalog; plugins: string[]; jobs: ScheduledJob[] }> {
  const found: Partial<Record<GatewayReadMethod, unknown>> = {};
  for (;;) {
    const pending = (Object.keys(READS) as GatewayReadMethod[]).filter((method) => !(method in found));
    if (pending.length === 0) break;
    const outcome = await cli.gatewayReads(pending, gateway.port, gateway.token, options);
    const ran = outcome.kind === 'exited' && outcome.code === 0;
    const parsed = ran ? parseJsonOutput(outcome.stdout) : { ok: false as const };
    for (const method of pending) {
      const answer = parsed.ok ? answerOf(parsed.value, method) : null;
      const value = answer?.answered ? READS[method](answer.value) : null;
      if (value !== null && value !== undefined) {
        found[method] = value;
        continue;
      }
      logEvent('gateway.read.unanswered', {
        method,
        outcome: outcome.kind,
        ...(outcome.kind === 'exited' ? { exitCode: outcome.code } : {}),
        shape: answer?.answered ? 'unexpected' : 'none',
      });
      if (answer?.answered) throw unreadable();
    }
    if ((Object.keys(READS) as GatewayReadMethod[]).every((method) => method in found)) break;
    if (Date.now() >= deadline || options.signal?.aborted) throw unreadable();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return { tools: found['tools.catalog'] as ToolsCatalog, plugins: found['plugins.list'] as string[], jobs: found['cron.list'] as ScheduledJob[] };
}

/** One method's entry in the reads' answer: `{answered: true, value}` or `{answered: false}`; null when the output has none. */
function answerOf(output: unknown, method: GatewayReadMethod): { answered: boolean; value?: unknown } | null {
  const entry = typeof output === 'object' && output !== null ? (output as Record<string, unknown>)[method] : undefined;
  if (typeof entry !== 'object' || entry === null || typeof (entry as { answered?: unknown }).answered !== 'boolean') return null;
  return entry as { answered: boolean; value?: unknown };
}

/** At most `max` non-empty names, each cut to 128 characters. */
function named(names: readonly string[], max: number): string[] {
  return names
    .filter(Boolean)
    .slice(0, max)
    .map((name) => name.slice(0, 128));
}

function unreadable(): StartupFailure {
  return new StartupFailure('GATEWAY_START_FAILED', 'The gateway did not say which plugins, tools and scheduled jobs it runs.');
}
