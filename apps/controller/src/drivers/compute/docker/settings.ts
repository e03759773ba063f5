import { redeploySetting, type RedeployMode } from '../runtime-contract/redeploy-mode.ts';
import { parseCidr, type Cidr } from './subnets.ts';

/** An unusable docker driver setting: `occ up` / `occ worker` refuse to start, naming the variable. */
export class DockerSettingError extends Error {
  override readonly name = 'DockerSettingError';
}

export interface DockerComputeSettings {
  /** The runtime image (OCC_RUNTIME_IMAGE): built by `npm run build:runtime-image`, never pulled by OCC. */
  image: string;
  /** Hard limits per container (OCC_DOCKER_MEMORY, OCC_DOCKER_CPUS, OCC_DOCKER_PIDS). */
  memoryBytes: number;
  /** A Codex Agent's container memory (OCC_DOCKER_CODEX_MEMORY): its app-server and harness run beside the gateway. */
  codexMemoryBytes: number;
  nanoCpus: number;
  pidsLimit: number;
  /** The private temporary home's size (OCC_DOCKER_HOME_SIZE, e.g. 2g): installed plugins and npm's cache live there. */
  homeSize: string;
  /** A Codex Agent's private area (OCC_DOCKER_CODEX_HOME_SIZE): OpenClaw copies the 350 MB harness plugin into its temporary directory per plugin generation. */
  codexHomeSize: string;
  /** Which OCC installation the containers belong to (OCC_DOCKER_INSTALLATION): two installations on one engine never touch each other's. */
  installation: string;
  /**
   * Where each Agent's own network takes its /28 from (OCC_DOCKER_SUBNETS). Default 198.18.0.0/16
   * (RFC 2544's benchmarking block: routed nowhere, and rarely a LAN's, unlike the private ranges).
   */
  subnets: Cidr;
  /**
   * How an Agent's running OpenClaw revision is replaced (OCC_DOCKER_REDEPLOY; runtime-contract/redeploy-mode.ts).
   * Default `prepare-beside` on an engine reached through its local socket: a candidate container
   * installs in its own private area, so nothing of the serving container's state is shared while
   * both run (the reason the local driver keeps `recreate` by default does not hold here); its
   * downtime is one gateway start. Default `recreate` when DOCKER_HOST names another engine: the
   * go a candidate finds after a restart is a file of OCC's host (docker/proceed-marker.ts).
   */
  redeploy: RedeployMode;
}

// A Codex Agent's private area held 1.8 GiB once its gateway served (the harness plugin's 344 MB in
// the state, and OpenClaw's copy of it per plugin generation, four by then, in the gateway's
// temporary directory); a turn adds one more: at 2g it failed with ENOSPC. The container peaked at
// 3.2–3.4 GiB at its first turn (tmpfs pages count); at 3g the kernel killed its gateway.
const DEFAULTS = { memory: '2g', codexMemory: '5g', codexHomeSize: '4g', cpus: '1', pids: '512', homeSize: '2g', installation: 'default', subnets: '198.18.0.0/16' };
const SIZE = /^([1-9][0-9]{0,5})([kmg])$/i;
const UNIT: Record<string, number> = { k: 1024, m: 1024 ** 2, g: 1024 ** 3 };
const IMAGE = /^[a-z0-9][a-z0-9._\-/:@]{0,254}$/i;
const INSTALLATION = /^[a-z0-9][a-z0-9-]{0,30}$/;

/** The docker driver's settings from the environment; a bad value names its variable (none of them is secret). */
export function dockerComputeSettings(env: NodeJS.ProcessEnv): DockerComputeSettings {
  const image = env.OCC_RUNTIME_IMAGE;
  if (!image) throw new DockerSettingError('OCC_RUNTIME_IMAGE is required with OCC_COMPUTE_DRIVER=docker (build it with `npm run build:runtime-image`).');
  if (!IMAGE.test(image)) throw new DockerSettingError('OCC_RUNTIME_IMAGE must be an image reference (name[:tag][@digest]).');
  const memoryBytes = memoryLimit(env, 'OCC_DOCKER_MEMORY', DEFAULTS.memory);
  const codexMemoryBytes = memoryLimit(env, 'OCC_DOCKER_CODEX_MEMORY', DEFAULTS.codexMemory);
  const cpus = Number(env.OCC_DOCKER_CPUS || DEFAULTS.cpus);
  if (!Number.isFinite(cpus) || cpus < 0.1 || cpus > 64) throw new DockerSettingError('OCC_DOCKER_CPUS must be a number of CPUs from 0.1 to 64.');
  const pids = Number(env.OCC_DOCKER_PIDS || DEFAULTS.pids);
  if (!Number.isInteger(pids) || pids < 64 || pids > 65536) throw new DockerSettingError('OCC_DOCKER_PIDS must be an integer from 64 to 65536.');
  const homeSize = env.OCC_DOCKER_HOME_SIZE || DEFAULTS.homeSize;
  if (!SIZE.test(homeSize)) throw new DockerSettingError('OCC_DOCKER_HOME_SIZE must be a size such as 512m or 2g.');
  const codexHomeSize = env.OCC_DOCKER_CODEX_HOME_SIZE || DEFAULTS.codexHomeSize;
  if (!SIZE.test(codexHomeSize)) throw new DockerSettingError('OCC_DOCKER_CODEX_HOME_SIZE must be a size such as 512m or 4g.');
  const installation = env.OCC_DOCKER_INSTALLATION || DEFAULTS.installation;
  if (!INSTALLATION.test(installation)) throw new DockerSettingError('OCC_DOCKER_INSTALLATION must be lowercase letters, digits and dashes (≤ 31).');
  const subnets = parseCidr(env.OCC_DOCKER_SUBNETS || DEFAULTS.subnets);
  // At least two Agents' /28s; the block's own address first (10.0.0.0/8, not 10.0.0.1/8).
  if (!subnets || subnets.prefix < 8 || subnets.prefix > 27) throw new DockerSettingError('OCC_DOCKER_SUBNETS must be an IPv4 block from /8 to /27 such as 198.18.0.0/16.');
  const localEngine = !env.DOCKER_HOST || env.DOCKER_HOST.startsWith('unix://');
  const redeploy = redeploySetting(env, 'OCC_DOCKER_REDEPLOY', localEngine ? 'prepare-beside' : 'recreate', (message) => new DockerSettingError(message));
  return {
    image,
    memoryBytes,
    codexMemoryBytes,
    nanoCpus: Math.round(cpus * 1e9),
    pidsLimit: pids,
    homeSize: homeSize.toLowerCase(),
    codexHomeSize: codexHomeSize.toLowerCase(),
    installation,
    subnets,
    redeploy,
  };
}

function memoryLimit(env: NodeJS.ProcessEnv, name: 'OCC_DOCKER_MEMORY' | 'OCC_DOCKER_CODEX_MEMORY', fallback: string): number {
  const size = SIZE.exec(env[name] || fallback);
  if (!size) throw new DockerSettingError(`${name} must be a size such as 512m or 2g.`);
  const bytes = Number(size[1]) * UNIT[size[2]!.toLowerCase()]!;
  if (bytes < 256 * 1024 ** 2) throw new DockerSettingError(`${name} must be at least 256m (OpenClaw and npm run in it).`);
  return bytes;
}
