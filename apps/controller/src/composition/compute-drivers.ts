import { join } from 'node:path';
import { probeGatewayReady } from '@occ/runtime/gateway-probe';
import { runtimeLaunchCommand } from '@occ/runtime/launch';
import type { ComputeDriver } from '../core/ports/compute-driver.ts';
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

/**
 * The ComputeDrivers this build ships, by id (OCC_COMPUTE_DRIVER). Each is imported only when it is
 * picked: the others' modules and clients (the Docker and Kubernetes API clients, SSH) were about
 * half of what `occ up` loaded before it could start.
 */
const FACTORIES: Record<string, (ctx: ComputeDriverContext) => Promise<ComputeDriver>> = {
  // Runtimes as supervised child processes of this host, files under <dataDir>/compute/local.
  local: async ({ dataDir, env }) => {
    const { createLocalComputeDriver } = await import('../drivers/compute/local/index.ts');
    const { localConfinementSetting, localSharedLoopbackPorts } = await import('../drivers/compute/local/sandbox/confinement.ts');
    const { localRedeploySetting } = await import('../drivers/compute/local/redeploy-mode.ts');
    return createLocalComputeDriver({
      ...runtimeSettings(env),
      confinement: localConfinementSetting(env),
      redeploy: localRedeploySetting(env),
      sharedLoopbackPorts: localSharedLoopbackPorts(env),
      rootDir: join(dataDir, 'compute', 'local'),
      launch: runtimeLaunchCommand,
      probeGateway: probeGatewayReady,
      env,
    });
  },
  // One gateway Deployment per Agent in OCC_KUBERNETES_NAMESPACE (docs/compute-kubernetes.md); settings validated here, naming the variable.
  kubernetes: async ({ env }) => {
    const { createKubernetesComputeDriver } = await import('../drivers/compute/kubernetes/index.ts');
    const { kubernetesComputeSettings } = await import('../drivers/compute/kubernetes/settings.ts');
    return createKubernetesComputeDriver({ ...runtimeSettings(env), settings: kubernetesComputeSettings(env) });
  },
  // One hardened container per revision on the Docker engine DOCKER_HOST names (default: the local socket); docs/compute-docker.md.
  docker: async ({ dataDir, env }) => {
    const { createDockerComputeDriver } = await import('../drivers/compute/docker/index.ts');
    const { dockerComputeSettings } = await import('../drivers/compute/docker/settings.ts');
    return createDockerComputeDriver({
      ...runtimeSettings(env),
      settings: dockerComputeSettings(env),
      probeGateway: probeGatewayReady,
      proceedRoot: join(dataDir, 'compute', 'docker', 'proceed'),
    });
  },
  // Runtimes as processes of one SSH host's user, read through the connection (docs/compute-ssh.md); Agents without plugins only [P-3].
  ssh: async ({ dataDir, env }) => {
    const { createSshComputeDriver } = await import('../drivers/compute/ssh/index.ts');
    const { sshComputeSettings } = await import('../drivers/compute/ssh/settings.ts');
    return createSshComputeDriver({
      settings: sshComputeSettings(env),
      rootDir: join(dataDir, 'compute', 'ssh'),
      probeGateway: probeGatewayReady,
      network: runtimeNetworkSettings(env),
    });
  },
};

function availableComputeDrivers(): string[] {
  return Object.keys(FACTORIES);
}

/** The driver named `id`; undefined for no id or `none` (deploys then answer 501 and no worker runs). Rejects a bad setting, naming it. */
export async function createComputeDriver(id: string | undefined, ctx: ComputeDriverContext): Promise<ComputeDriver | undefined> {
  if (!id || id === NO_COMPUTE) return undefined;
  const factory = Object.hasOwn(FACTORIES, id) ? FACTORIES[id] : undefined;
  if (!factory) throw new Error(`Unknown ComputeDriver "${id}" (available: ${[...availableComputeDrivers(), NO_COMPUTE].join(', ')})`);
  return factory(ctx);
}
