import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { bootstrapInstallation, composeController, createComputeDriver, DEFAULT_COMPUTE_DRIVER, DEFAULT_CONSOLE_DIRECTORY, parsePluginDriverSelection } from '@occ/controller';
import { parseFlags } from '../../args.ts';
import { configPath, readConfig, saveContext } from '../../context/config-file.ts';
import { untilStopSignal } from './stop-signal.ts';

/** The context `occ up` writes for the controller it started, so `occ` commands reach it at once. */
export const LOCAL_CONTEXT = 'local';

export const ADMIN_KEY_FILE = 'admin-api-key';

const USAGE = `occ up [--data-dir DIR] [--port PORT] [--host HOST] [--no-context]

Starts the OCC controller. Without DATABASE_URL it uses an embedded PGlite database in
DIR/pgdata; with DATABASE_URL it uses that PostgreSQL. On first start it bootstraps the
Installation and writes the administrator API key to DIR/${ADMIN_KEY_FILE} (mode 0600).
Defaults: DIR = $OCC_DATA_DIR or ./.occ-data, PORT = $PORT or 8080 (0 = any free port),
HOST = 127.0.0.1.

When the administrator key is on this machine, it writes (or refreshes) the \`${LOCAL_CONTEXT}\` context
in the occ configuration file ($OCC_CONFIG, else ~/.config/occ/config.json, mode 0600) and
makes it current unless another context is; --no-context skips that.

Compute: OCC_COMPUTE_DRIVER (default ${DEFAULT_COMPUTE_DRIVER}: each Agent's runtime runs as a supervised
child process of this one, files under DIR/compute/local; OCC_OPENCLAW_CATALOG and
OCC_NPM_REGISTRY are passed to the runtimes). OCC_COMPUTE_DRIVER=none runs without compute
(deploys answer 501).

Metrics: OCC_METRICS_ADDRESS=host:port (e.g. 127.0.0.1:9464; port 0 = any free port) serves
Prometheus metrics at GET /metrics on a listener of its own, apart from the API; unset, none.
It has no authentication: keep it on loopback or a private network (docs/observability.md).`;

export async function up(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (argv.includes('--help')) {
    console.log(USAGE);
    return 0;
  }
  const writeContext = !argv.includes('--no-context');
  const flags = parseFlags(
    argv.filter((arg) => arg !== '--no-context'),
    ['data-dir', 'port', 'host'],
  );
  const dataDir = resolve(flags['data-dir'] ?? env.OCC_DATA_DIR ?? '.occ-data');
  const port = Number(flags.port ?? env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port must be an integer from 0 to 65535');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const computeId = env.OCC_COMPUTE_DRIVER || DEFAULT_COMPUTE_DRIVER;
  const compute = await createComputeDriver(computeId, { dataDir, env });

  const controller = await composeController({
    dataDir,
    ...(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : {}),
    pluginDrivers: parsePluginDriverSelection(env.OCC_PLUGIN_DRIVERS),
    ...(compute ? { compute } : {}),
    logger: { level: env.OCC_LOG_LEVEL ?? 'info' },
    ...(env.OCC_METRICS_ADDRESS ? { metricsAddress: env.OCC_METRICS_ADDRESS } : {}),
  });
  const keyPath = join(dataDir, ADMIN_KEY_FILE);
  const boot = await bootstrapInstallation(controller.deps);
  if (boot.created) writeFileSync(keyPath, `${boot.adminKey}\n`, { mode: 0o600 });

  const url = await controller.app.listen({ port, host: flags.host ?? '127.0.0.1' });
  // Everything is in place (signal handlers, the context) before the banner says so: a script
  // that waits for the banner may stop this process or run `occ` at once.
  const stopped = untilStopSignal();
  const contextLine = writeContext && existsSync(keyPath) ? writeLocalContext(url, keyPath, env) : undefined;
  console.log(`OCC is listening on ${url}`);
  console.log(`Database: ${env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${join(dataDir, 'pgdata')}`}`);
  console.log(`ComputeDriver: ${compute ? compute.id : 'none (deploys answer 501)'}`);
  console.log(`Metrics: ${controller.metrics ? `${controller.metrics.url}  (OCC_METRICS_ADDRESS)` : 'off (OCC_METRICS_ADDRESS=127.0.0.1:9464 serves them)'}`);
  console.log(
    existsSync(join(DEFAULT_CONSOLE_DIRECTORY, 'index.html')) ? `Console: ${url}/  (sign in with an API key)` : 'Console: not built (npm run build:console, then start again)',
  );
  if (contextLine) console.log(contextLine);
  console.log(
    existsSync(keyPath)
      ? `Administrator API key: ${keyPath}  (curl -H "Authorization: Bearer $(cat ${keyPath})" ${url}/installation)`
      : 'Administrator API key: issued at first start and not on this machine (no admin-api-key file).',
  );

  await stopped;
  await controller.close();
  return 0;
}

/**
 * Writes the `local` context for this controller; it becomes current unless another context is.
 * A configuration file it cannot read or write costs the context, never the controller's start.
 */
function writeLocalContext(url: string, keyPath: string, env: NodeJS.ProcessEnv): string {
  try {
    return saveLocalContext(url, keyPath, env);
  } catch (error) {
    return `Context: not written (${(error as Error).message})`;
  }
}

function saveLocalContext(url: string, keyPath: string, env: NodeJS.ProcessEnv): string {
  const path = configPath(env);
  const config = readConfig(path);
  const current = config.currentContext;
  // A default Namespace the person chose (occ context set-namespace) outlives restarts.
  const namespace = config.contexts[LOCAL_CONTEXT]?.namespace ?? 'default';
  saveContext(LOCAL_CONTEXT, { server: url, apiKey: readFileSync(keyPath, 'utf8').trim(), namespace }, { makeCurrent: !current || current === LOCAL_CONTEXT }, path);
  return `Context: ${LOCAL_CONTEXT} in ${path}  (occ agents list uses it${current && current !== LOCAL_CONTEXT ? `; occ context use ${LOCAL_CONTEXT} first` : ''})`;
}
