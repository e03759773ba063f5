import { join } from 'node:path';
import { probeGatewayReady } from '@occ/runtime/gateway-probe';
import { runtimeLaunchCommand } from '@occ/runtime/launch';
import type { ComputeDriver } from '../core/ports/compute-driver.ts';
import { createDockerComputeDriver } from '../drivers/compute/docker/index.ts';
import { dockerComputeSettings } from '../drivers/compute/docker/settings.ts';
import { createKubernetesComputeDriver } from '../drivers/compute/kubernetes/index.ts';
import { kubernetesComputeSettings } from '../drivers/compute/kubernetes/settings.ts';
import { createLocalComputeDriver } from '../drivers/compute/local/index.ts';
import { createSshComputeDriver } from '../drivers/compute/ssh/index.ts';
import { sshComputeSettings } from '../drivers/compute/ssh/settings.ts';
import { localConfinementSetting, localSharedLoopbackPorts } from '../drivers/compute/local/sandbox/confinement.ts';
import { localRedeploySetting } from '../drivers/compute/local/redeploy-mode.ts';
import { codexRuntimeSettings } from '../drivers/compute/runtime-contract/codex-settings.ts';
import { runtimeNetworkSettings } from '../drivers/compute/runtime-contract/network-settings.ts';
import { unselectedPluginsSetting } from './unselected-plugins.ts';

/** What a ComputeDriver factory may read: the data directory and the process environment. */
export interface ComputeDriverContext {
  dataDir: string;
  env: NodeJS.ProcessEnv;
}

/** The embedded default (`occ up` without OCC_COMPUTE_DRIVER); `none` runs without compute. */
export const DEFAULT_COMPUTE_DRIVER = 'local';
const NO_COMPUTE = 'none';

/**
 * What every driver passes on to OCC's runtime, from the Installation's settings: the curated
 * catalog file, the npm registry, the unselected-plugins mode, the network variables (a bad
 * OCC_RUNTIME_CA_FILE or OCC_RUNTIME_PROXY stops `occ up` / `occ worker` here) and the Codex
 * settings (OCC_CODEX_MARKETPLACES and the hosted bases discovery uses; validated here too).
 */
function runtimeSettings(env: NodeJS.ProcessEnv) {
  return {
    catalog: env.OCC_OPENCLAW_CATALOG,
    npmRegistry: env.OCC_NPM_REGISTRY,
    unselectedPlugins: unselectedPluginsSetting(env),
    network: runtimeNetworkSettings(env),
    codex: codexRuntimeSettings(env),
  };
}

/** The ComputeDrivers this build ships, by id (OCC_COMPUTE_DRIVER). */
const FACTORIES: Record<string, (ctx: ComputeDriverContext) => ComputeDriver> = {
  // Runtimes as supervised child processes of this host, files under <dataDir>/compute/local.
  local: ({ dataDir, env }) =>
    createLocalComputeDriver({
      ...runtimeSettings(env),
      confinement: localConfinementSetting(env),
      redeploy: localRedeploySetting(env),
      sharedLoopbackPorts: localSharedLoopbackPorts(env),
      rootDir: join(dataDir, 'compute', 'local'),
      launch: runtimeLaunchCommand,
      probeGateway: probeGatewayReady,
      env,
    }),
  // One gateway Deployment per Agent in OCC_KUBERNETES_NAMESPACE (docs/compute-kubernetes.md); settings validated here, naming the variable.
  kubernetes: ({ env }) => createKubernetesComputeDriver({ ...runtimeSettings(env), settings: kubernetesComputeSettings(env) }),
  // One hardened container per revision on the Docker engine DOCKER_HOST names (default: the local socket); docs/compute-docker.md.
  docker: ({ dataDir, env }) =>
    createDockerComputeDriver({
      ...runtimeSettings(env),
      settings: dockerComputeSettings(env),
      probeGateway: probeGatewayReady,
      proceedRoot: join(dataDir, 'compute', 'docker', 'proceed'),
    }),
  // Runtimes as processes of one SSH host's user, read through the connection (docs/compute-ssh.md); Agents without plugins only [P-3].
  ssh: ({ dataDir, env }) =>
    createSshComputeDriver({
      settings: sshComputeSettings(env),
      rootDir: join(dataDir, 'compute', 'ssh'),
      probeGateway: probeGatewayReady,
      network: runtimeNetworkSettings(env),
    }),
};

function availableComputeDrivers(): string[] {
  return Object.keys(FACTORIES);
}

/** The driver named `id`; undefined for no id or `none` (deploys then answer 501 and no worker runs). */
export function createComputeDriver(id: string | undefined, ctx: ComputeDriverContext): ComputeDriver | undefined {
  if (!id || id === NO_COMPUTE) return undefined;
  const factory = Object.hasOwn(FACTORIES, id) ? FACTORIES[id] : undefined;
  if (!factory) throw new Error(`Unknown ComputeDriver "${id}" (available: ${[...availableComputeDrivers(), NO_COMPUTE].join(', ')})`);
  return factory(ctx);
}
