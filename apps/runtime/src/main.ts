// The agent runtime's process entry (started by a compute driver with runtimeLaunchCommand()).
// Contract: README.md. Serves its startup status from the first moment, prepares the revision,
// then publishes ready and supervises the gateway; a failed startup keeps serving `failed`
// until SIGTERM.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { StartupStatus } from '@occ/contracts';
import { loadCatalog } from './catalog.ts';
import { readRuntimeEnvironment, type RuntimeEnvironment } from './environment.ts';
import { asStartupFailure, StartupFailure } from './failure.ts';
import { freeLoopbackPort } from './free-port.ts';
import { startGateway, type RunningGateway } from './gateway.ts';
import { logEvent } from './log.ts';
import { readManifest } from './manifest.ts';
import { OpenClawCli, openclawEnvironment } from './openclaw-cli.ts';
import { prepareRevision } from './prepare.ts';
import { writePrivateFileAtomic } from './private-files.ts';
import { revisionConfigPath } from './revision-config.ts';
import { startStatusServer } from './status-server.ts';
import { pinnedToolchain } from './toolchain.ts';

const GATEWAY_STOP_GRACE_MS = 20_000;

const startedAt = Date.now();
const startupId = randomBytes(18).toString('base64url');
const environment = readRuntimeEnvironment();
if (environment.statusToken === null || environment.revisionDir === null) {
  logEvent('startup.unservable', { code: 'RUNTIME_ENVIRONMENT_INVALID' });
  process.exit(2);
}

let status: StartupStatus = { revisionId: '', startupId, phase: 'preparing', plugins: [], failures: [], gatewayPort: null, error: null };
const shutdown = new AbortController();
let gateway: RunningGateway | null = null;
let cli: OpenClawCli | null = null;

const server = await startStatusServer(environment.statusToken, () => status);
writePrivateFileAtomic(join(environment.revisionDir, 'endpoint.json'), `${JSON.stringify({ pid: process.pid, statusPort: server.port, startupId })}\n`);
logEvent('startup.serving', { startupId, statusPort: server.port });

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logEvent('runtime.stopping', { signal });
  shutdown.abort();
  cli?.stopAll();
  if (gateway !== null) {
    const exit = await gateway.stop(GATEWAY_STOP_GRACE_MS);
    logEvent('gateway.stopped', { code: exit.code, signal: exit.signal });
  }
  await server.close();
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));

function fail(error: unknown): void {
  const failure = asStartupFailure(error);
  if (!(error instanceof StartupFailure)) logEvent('startup.unexpected', { error: error instanceof Error ? `${error.name}: ${error.message}` : 'unknown' });
  status = { ...status, phase: 'failed', gatewayPort: null, error: { code: failure.code, message: failure.message } };
  logEvent('startup.failed', { code: failure.code, message: failure.message, ms: Date.now() - startedAt });
}

/** The Secret variables the manifest names, taken out of this process's environment (only the gateway gets them). */
function takeSecrets(names: readonly string[]): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const name of names) {
    const value = process.env[name];
    delete process.env[name];
    if (value !== undefined) secrets[name] = value;
  }
  const missing = names.filter((name) => !Object.hasOwn(secrets, name));
  if (missing.length > 0) logEvent('secrets.missing', { names: missing });
  return secrets;
}

async function run(env: RuntimeEnvironment | StartupFailure): Promise<void> {
  if (env instanceof StartupFailure) throw env;
  const manifest = readManifest(env.manifestPath);
  status = { ...status, revisionId: manifest.revisionId ?? '' };
  if (manifest.result instanceof StartupFailure) throw manifest.result;
  const secrets = takeSecrets(manifest.result.secretEnvironment);
  const toolchain = pinnedToolchain();
  const catalog = loadCatalog(env.catalogPath, toolchain);
  const configPath = revisionConfigPath(env.revisionDir);
  cli = new OpenClawCli(
    toolchain,
    openclawEnvironment({ toolchain, path: env.path, home: env.home, lang: env.lang, stateDir: env.stateDir, configPath, npmRegistry: env.npmRegistry, network: env.network }),
  );
  const prepared = await prepareRevision({ cli, catalog, manifest: manifest.result, configPath, signal: shutdown.signal });
  if (stopping) return;
  let port: number;
  try {
    port = await freeLoopbackPort();
  } catch {
    throw new StartupFailure('GATEWAY_START_FAILED', 'No loopback port was available for the gateway.');
  }
  if (stopping) return;
  status = { ...status, phase: 'ready', plugins: prepared.plugins, failures: prepared.failures, gatewayPort: port };
  logEvent('startup.ready', { plugins: prepared.plugins, failures: prepared.failures.map((f) => `${f.pluginId} ${f.code}`), gatewayPort: port, ms: Date.now() - startedAt });
  gateway = startGateway(cli, { port, token: env.gatewayToken, secrets });
  logEvent('gateway.started', { pid: gateway.pid, port });
  const exit = await gateway.exited;
  if (stopping) return;
  logEvent('gateway.exited', { code: exit.code, signal: exit.signal });
  process.exit(1);
}

try {
  await run(environment.result);
} catch (error) {
  if (!stopping) fail(error);
}
