import { fileURLToPath } from 'node:url';
import { startGateway, type GatewayInput, type RunningGateway } from './gateway.ts';
import { installArgs, type InstallFlags } from './install-flags.ts';
import { readCommandArgs, type BatchedOutcome, type ReadCommand } from './openclaw-batch.ts';
import type { CliOutcome, OpenClawCli } from './openclaw-cli.ts';
import { OpenClawSession } from './openclaw-session.ts';
import type { PinnedToolchain } from './toolchain.ts';

export interface CommandOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

export type { GatewayInput } from './gateway.ts';

/** The gateway methods the runtime reads after start: every tool it loaded by plugin, every plugin's runtime state, every scheduled job. */
export type GatewayReadMethod = 'tools.catalog' | 'plugins.list' | 'cron.list';
const GATEWAY_READ_PARAMS: Record<GatewayReadMethod, Record<string, unknown>> = { 'tools.catalog': { includePlugins: true }, 'plugins.list': {}, 'cron.list': {} };
/** How long a read waits for the gateway's answer (`gateway call`'s own default, 10 s, is too short on a loaded machine). */
const GATEWAY_ANSWER_TIMEOUT_MS = 30_000;
/** Reads several gateway methods in one process (`openclaw gateway call`'s own client; plain JavaScript, no loader). */
const GATEWAY_READS_SCRIPT = fileURLToPath(new URL('./gateway-reads.mjs', import.meta.url));

/**
 * Everything the runtime asks of the `openclaw` CLI, one method per command. The real
 * implementation runs the pinned CLI; tests replay outputs recorded from it
 * (test/support/recorded-commands.ts), so the runtime's ordering is tested without processes.
 */
export interface OpenClawCommands {
  /** `plugins install --help`: which optional install flags this release has. */
  installHelp(options: CommandOptions): Promise<CliOutcome>;
  /** `plugins install <package>@<version> --pin --force …` (stdout echoed to the runtime log; in the prepare's one process). */
  install(packageName: string, version: string, flags: InstallFlags, options: CommandOptions): Promise<CliOutcome>;
  /**
   * `plugins install <npm:spec> --pin --force` offline from the npm cache `cacheDir` (the Codex harness plugin; stdout
   * echoed), in the prepare's one process, started with that cache (the inspection and reads after it run there too).
   */
  installHarnessPlugin(spec: string, cache: { npmCache: string; registry: string }, options: CommandOptions): Promise<CliOutcome>;
  /** `plugins uninstall <ids…> --force` (stdout echoed; in the prepare's one process). */
  uninstall(pluginIds: readonly string[], options: CommandOptions): Promise<CliOutcome>;
  /**
   * The read-back commands — `plugins registry --refresh --json`, `plugins inspect <id> --json`,
   * `config get <section> --json` — in order, in the prepare's ONE OpenClaw process
   * (openclaw-session.ts: the CLI's own entry, loaded once). One outcome per command; after the
   * first that fails, the rest are `skipped`. `timeoutMs` is per command.
   */
  readInOneProcess(commands: readonly ReadCommand[], options: CommandOptions): Promise<BatchedOutcome[]>;
  /**
   * Reads `methods` of the running gateway on loopback, all in one process, as `gateway call
   * <method> --json` would (what it loaded, what it schedules). stdout: one JSON object, each
   * method → `{answered: true, value}` or `{answered: false}`.
   */
  gatewayReads(methods: readonly GatewayReadMethod[], port: number, token: string, options: CommandOptions): Promise<CliOutcome>;
  /** `gateway run …` on loopback with token auth (runs until stopped). */
  startGateway(input: GatewayInput): RunningGateway;
  /** The prepare's commands are done: its one OpenClaw process (openclaw-session.ts) exits; resolves once it has. */
  endSession(): Promise<void>;
  /** Stops every command still running (runtime shutdown: openclaw-cli.ts); resolves once they were signalled to the end. */
  stopAll(): Promise<void>;
}

/**
 * The real commands: the pinned CLI through OpenClawCli. A prepare's installs, read-backs and
 * uninstalls run one after another in ONE OpenClaw process (openclaw-session.ts); any other
 * command of this runtime first ends that process and waits for it to exit (the runtime awaits
 * endSession before it starts the gateway).
 */
export class CliCommands implements OpenClawCommands {
  private readonly session: OpenClawSession;

  constructor(
    private readonly cli: OpenClawCli,
    /** OpenClaw's modules the runtime's scripts load: the gateway client, the CLI's entry, the config snapshot. */
    private readonly modules: Pick<PinnedToolchain, 'openclawGatewayRuntime' | 'openclawRunMain' | 'openclawConfigSnapshot'>,
  ) {
    this.session = new OpenClawSession(cli, modules);
  }

  async installHelp(options: CommandOptions): Promise<CliOutcome> {
    await this.session.end();
    return this.cli.run(['plugins', 'install', '--help'], options);
  }

  async install(packageName: string, version: string, flags: InstallFlags, options: CommandOptions): Promise<CliOutcome> {
    return (await this.session.run(installArgs(packageName, version, flags), { ...options, echoStdout: true })).outcome;
  }

  async installHarnessPlugin(spec: string, cache: { npmCache: string; registry: string }, options: CommandOptions): Promise<CliOutcome> {
    // Offline: npm takes every package and its metadata from the set-up cache, never a registry;
    // the registry named is the one the cache was filled from (its key), not the Agent's.
    // The cache is read-only inside a confined runtime: npm writes no log file into it.
    const processEnv = { npm_config_cache: cache.npmCache, npm_config_offline: 'true', npm_config_logs_max: '0', npm_config_registry: cache.registry };
    return (await this.session.run(['plugins', 'install', spec, '--pin', '--force'], { ...options, echoStdout: true, processEnv })).outcome;
  }

  async uninstall(pluginIds: readonly string[], options: CommandOptions): Promise<CliOutcome> {
    return (await this.session.run(['plugins', 'uninstall', ...pluginIds, '--force'], { ...options, echoStdout: true })).outcome;
  }

  async readInOneProcess(commands: readonly ReadCommand[], options: CommandOptions): Promise<BatchedOutcome[]> {
    const outcomes: BatchedOutcome[] = [];
    for (const command of commands) {
      const failed = outcomes.some(({ outcome }) => outcome.kind !== 'exited' || outcome.code !== 0);
      outcomes.push(failed ? { outcome: { kind: 'skipped' }, ms: 0 } : await this.session.run(readCommandArgs(command), options));
    }
    return outcomes;
  }

  async gatewayReads(methods: readonly GatewayReadMethod[], port: number, token: string, options: CommandOptions): Promise<CliOutcome> {
    await this.session.end();
    const requested = JSON.stringify(Object.fromEntries(methods.map((method) => [method, GATEWAY_READ_PARAMS[method]])));
    const args = [this.modules.openclawGatewayRuntime, String(port), String(GATEWAY_ANSWER_TIMEOUT_MS), requested];
    // The token goes in the environment, never in argv (other processes can read argv).
    return this.cli.runScript(GATEWAY_READS_SCRIPT, args, { ...options, env: { OPENCLAW_GATEWAY_TOKEN: token } });
  }

  startGateway(input: GatewayInput): RunningGateway {
    // Not awaited here (a gateway starts synchronously): the runtime awaits endSession before it starts one (main.ts).
    void this.session.end();
    return startGateway(this.cli, input);
  }

  endSession(): Promise<void> {
    return this.session.end();
  }

  stopAll(): Promise<void> {
    return this.cli.stopAll();
  }
}
