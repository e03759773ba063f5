// Records the pinned OpenClaw CLI's real answers as test/fixtures/cli/*.json (see
// recorded-commands.ts). Re-run after changing the pinned OpenClaw, the fixture plugins or the
// runtime's command sequence, and review the diff:
//   npx tsx apps/runtime/test/support/record-cli-fixtures.ts [scenario …]   (default: all)
// It starts a private verdaccio with the fixture plugins, a closed loopback port (a registry that
// is down) and an HTTPS server with a throwaway CA nobody trusts (a TLS-inspecting proxy).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PluginMap } from '@occ/contracts';
import type { OpenClawCatalog } from '@occ/policy';
import { FIXTURE_PLUGINS, startFixtureRegistry } from '../../../../test-support/npm-registry.ts';
import { throwawayTls } from '../../../../test-support/throwaway-tls.ts';
import { DEFAULT_INSTALL_TIMEOUT_MS } from '../../src/environment.ts';
import { OpenClawCli, openclawEnvironment } from '../../src/openclaw-cli.ts';
import { CliCommands, type OpenClawCommands } from '../../src/openclaw-commands.ts';
import { prepareRevision } from '../../src/prepare.ts';
import { revisionConfigPath } from '../../src/revision-config.ts';
import { pinnedToolchain } from '../../src/toolchain.ts';
import { testManifest } from './runtime-process.ts';
import { recordingCommands, type CliRecording, type CliWorld, type RecordedCall } from './recorded-commands.ts';

const GOOD = FIXTURE_PLUGINS.good;
const REJECTED = FIXTURE_PLUGINS.rejected;
const TAMPERED = FIXTURE_PLUGINS.tampered;
const fixturesDir = fileURLToPath(new URL('../fixtures/cli/', import.meta.url));
const toolchain = pinnedToolchain();
const openclawPackageDir = join(toolchain.openclawDir, 'node_modules', 'openclaw');
const versionOf = (dir: string) => (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
const recordedWith = { openclaw: versionOf(openclawPackageDir), node: versionOf(join(toolchain.nodeDir, 'node_modules', 'node')) };

const only = new Set(process.argv.slice(2));
const wanted = (scenario: string) => only.size === 0 || only.has(scenario);
const root = mkdtempSync(join(tmpdir(), 'occ-cli-record-'));
let counter = 0;

/** A fresh (or given) Agent state, revision dir and HOME; `npmrc` is the npm user config in HOME. */
function newWorld(stateDir?: string, npmrc?: string): CliWorld {
  const dir = join(root, String(++counter));
  const world: CliWorld = { stateDir: stateDir ?? join(dir, 'state'), revisionDir: join(dir, 'revision'), home: join(dir, 'home'), configPath: '', openclawPackageDir };
  world.configPath = revisionConfigPath(world.revisionDir);
  for (const path of [world.stateDir, world.revisionDir, world.home]) mkdirSync(path, { recursive: true, mode: 0o700 });
  if (npmrc) writeFileSync(join(world.home, '.npmrc'), npmrc);
  return world;
}

function realCommands(world: CliWorld, registry: string): OpenClawCommands {
  const env = openclawEnvironment({
    toolchain,
    path: process.env.PATH ?? '/usr/bin:/bin',
    home: world.home,
    lang: 'C.UTF-8',
    stateDir: world.stateDir,
    configPath: world.configPath,
    npmRegistry: registry,
    network: {},
  });
  return new CliCommands(new OpenClawCli(toolchain, env), toolchain);
}

/** The paths inspect answers point at (install path, plugin root and entry), for replays to recreate. */
function pathsOf(calls: RecordedCall[]): CliRecording['paths'] {
  const dirs = new Set<string>();
  const files = new Set<string>();
  for (const call of calls) {
    if (call.command !== 'inspect' || call.outcome.kind !== 'exited' || call.outcome.code !== 0) continue;
    const answer = JSON.parse(call.outcome.stdout) as { plugin?: { rootDir?: string; source?: string }; install?: { installPath?: string } };
    for (const dir of [answer.install?.installPath, answer.plugin?.rootDir]) if (dir) dirs.add(dir);
    // Paths are in placeholder form (`<state>/…`) here: a relative source is joined, never resolved against this directory.
    const { rootDir, source } = answer.plugin ?? {};
    if (rootDir && source) files.add(source.startsWith('<') || isAbsolute(source) ? source : join(rootDir, source));
  }
  return { dirs: [...dirs], files: [...files] };
}

function save(recording: CliRecording): void {
  writeFileSync(join(fixturesDir, `${recording.scenario}.json`), `${JSON.stringify(recording, null, 2)}\n`);
  console.log(
    `recorded ${recording.scenario}: ${recording.calls.map((call) => `${call.command}→${call.outcome.kind === 'exited' ? call.outcome.code : call.outcome.kind}`).join(', ')}`,
  );
}

/** prepareRevision against the real CLI, every command recorded; a startup failure is part of the recording. */
async function recordPrepare(
  scenario: string,
  input: {
    world: CliWorld;
    registry: string;
    catalog: OpenClawCatalog;
    selections: PluginMap;
    configuration?: Record<string, unknown>;
    installTimeoutMs?: number;
    hostPort: string;
  },
): Promise<void> {
  if (!wanted(scenario)) return;
  const extra: [string, string][] = [[input.hostPort, '127.0.0.1:<registry-port>']];
  const commands = recordingCommands(realCommands(input.world, input.registry), input.world, extra);
  const manifest = testManifest(input.selections, input.configuration ?? {});
  try {
    const prepared = await prepareRevision({
      cli: commands,
      catalog: input.catalog,
      manifest,
      configPath: input.world.configPath,
      stateDir: input.world.stateDir,
      installTimeoutMs: input.installTimeoutMs ?? DEFAULT_INSTALL_TIMEOUT_MS,
      signal: new AbortController().signal,
    });
    console.log(scenario, 'prepared:', JSON.stringify(prepared));
  } catch (error) {
    console.log(scenario, 'failed:', error instanceof Error ? `${(error as { code?: string }).code} ${error.message}` : error);
  }
  await commands.settled();
  const fixtureIds = new Set<string>(Object.values(FIXTURE_PLUGINS).map((plugin) => plugin.package));
  save({
    scenario,
    recordedWith,
    selections: input.selections,
    configuration: input.configuration ?? {},
    catalogPlugins: input.catalog.plugins.filter((plugin) => fixtureIds.has(plugin.id)),
    paths: pathsOf(commands.calls),
    calls: commands.calls,
  });
}

async function closedLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

const registry = await startFixtureRegistry();
const tls = throwawayTls();
// The chain includes the CA, as a TLS-inspecting proxy sends it: npm sees SELF_SIGNED_CERT_IN_CHAIN.
const untrusted = createHttpsServer({ cert: `${tls.cert}${tls.ca}`, key: tls.key }, (_request, response) => response.writeHead(404).end('{}'));
await new Promise<void>((done) => untrusted.listen(0, '127.0.0.1', done));
try {
  const hostPort = new URL(registry.url).host;
  const catalog = registry.catalog;
  const first = newWorld();
  await recordPrepare('fresh-start', {
    world: first,
    registry: registry.url,
    catalog,
    hostPort,
    selections: {
      'file-transfer': { enabled: true, tools: { file_write: { enabled: false } } },
      [`openclaw:${GOOD.package}`]: {
        enabled: true,
        toolDefaults: { enabled: true, approval: 'none' },
        tools: { fixture_write: { enabled: false }, fixture_clock: { approval: 'provider_default' } },
      },
      [REJECTED.package]: { enabled: true },
    },
    configuration: { tools: { profile: 'coding', deny: ['exec'] } },
  });
  await recordPrepare('later-revision-bundled-only', { world: newWorld(first.stateDir), registry: registry.url, catalog, hostPort, selections: { 'llm-task': { enabled: true } } });
  await recordPrepare('integrity-mismatch', {
    world: newWorld(),
    registry: registry.url,
    catalog,
    hostPort,
    selections: { [TAMPERED.package]: { enabled: true }, [GOOD.package]: { enabled: false } },
    configuration: { plugins: { allow: [TAMPERED.pluginId, 'memory-core'], deny: [GOOD.pluginId] }, tools: { deny: ['exec'] } },
  });
  // Install failures. `fetch-retries=0` in the npm user config makes npm report at once; with npm's
  // default retries (about 70 s per request) the install deadline ends it instead.
  const good = { [GOOD.package]: { enabled: true } };
  const down = `http://127.0.0.1:${await closedLoopbackPort()}/`;
  await recordPrepare('source-down', { world: newWorld(undefined, 'fetch-retries=0\n'), registry: down, catalog, hostPort: new URL(down).host, selections: good });
  await recordPrepare('source-down-deadline', { world: newWorld(), registry: down, catalog, hostPort: new URL(down).host, selections: good, installTimeoutMs: 80_000 });
  const tlsUrl = `https://127.0.0.1:${(untrusted.address() as AddressInfo).port}/`;
  await recordPrepare('source-untrusted-tls', { world: newWorld(undefined, 'fetch-retries=0\n'), registry: tlsUrl, catalog, hostPort: new URL(tlsUrl).host, selections: good });
} finally {
  untrusted.close();
  await registry.close();
  rmSync(root, { recursive: true, force: true });
}
