import { existsSync, statSync } from 'node:fs';
import { CODEX_PAT_ENVIRONMENT } from '@occ/contracts';
import { codexRuntimeVariables, type CodexRuntimeSettings } from '../runtime-contract/codex-settings.ts';
import { CONTAINER_PATHS, CONTAINER_USER } from '../runtime-contract/container-paths.ts';
import { isReservedVariable, StartRefused } from '../runtime-contract/start-refusal.ts';
import { appServerContainerName, CODEX_APP_SERVER, codexAppServerEnvironment, codexGatewayEnvironment } from './codex-app-server.ts';
import { PROCEED_MARKER } from './proceed-marker.ts';
import { publishedPorts, runtimePortEnvironment } from './runtime-ports.ts';
import type { DockerComputeSettings } from './settings.ts';

/**
 * The runtime image's label (apps/runtime/Dockerfile) saying its runtime holds before its gateway
 * (OCC_RUNTIME_HOLD_BEFORE_GATEWAY) and reads a recorded go (OCC_RUNTIME_PROCEED_MARKER): only
 * such an image's candidates are prepared beside the serving container.
 */
export const RUNTIME_IMAGE_HOLDS_LABEL = 'org.occ.runtime-holds-for-go';

/** Linux refuses one environment string over 128 KiB: the runtime reads at most this much inline (apps/runtime README). */
export const MAX_INLINE_MANIFEST_BYTES = 120 * 1024;

export const LABELS = {
  managedBy: 'occ.dev/managed-by',
  installation: 'occ.dev/installation',
  namespaceId: 'occ.dev/namespace-id',
  agentId: 'occ.dev/agent-id',
  revisionId: 'occ.dev/revision-id',
  /** The names (never values) of the variables delivered from Secret bindings: the live view's deliveredSecrets. */
  deliveredSecrets: 'occ.dev/delivered-secrets',
  /** `app-server` on a Codex revision's app-server container (codex-app-server.ts); absent on the runtime (gateway) container. */
  role: 'occ.dev/runtime-role',
} as const;

export interface RevisionIdentity {
  namespaceId: string;
  agentId: string;
  revisionId: string;
}

/** The runtime's three per-revision credentials (random, kept only in the container's environment). */
export interface RuntimeTokens {
  status: string;
  gateway: string;
  transport: string;
}

export interface ContainerSpecInput {
  settings: DockerComputeSettings;
  revision: RevisionIdentity;
  manifestJson: string;
  tokens: RuntimeTokens;
  /** The revision's Secret bindings this start delivers (values). */
  secrets: Readonly<Record<string, string>>;
  codexPat?: string | undefined;
  /** The allowlisted network variables (runtimeNetworkSettings): files they name are mounted read-only. */
  network: Readonly<Record<string, string>>;
  /** The operator's curated catalog file on this host (OCC_OPENCLAW_CATALOG): mounted read-only. */
  catalogFile?: string | undefined;
  npmRegistry?: string | undefined;
  unselectedPlugins?: string | undefined;
  codex?: CodexRuntimeSettings | undefined;
  /** The revision's harness: a Codex Agent's private area must hold an executable (see below). */
  harness: 'openclaw' | 'codex';
  /** The image's entrypoint with the gateway relay preloaded (runtime-ports.ts withGatewayRelay). */
  entrypoint: string[];
  /** A Codex revision runs as two containers (codex-app-server.ts): this one's half. Default: the gateway's. */
  codexRole?: 'gateway' | 'app-server';
  /**
   * A candidate prepared beside the Agent's serving container: the host directory (proceed-marker.ts)
   * mounted read-only where the runtime looks for its go. The runtime holds in `prepared` until
   * told, unless the go is there already (the engine restarted it after it was given).
   */
  proceedDir?: string | undefined;
}

/** What `docker create` is given (the Engine API's ContainerCreate body, as dockerode takes it). */
export interface ContainerSpec {
  name: string;
  Image: string;
  Entrypoint: string[];
  User: string;
  Env: string[];
  Labels: Record<string, string>;
  StopTimeout: number;
  ExposedPorts: Record<string, object>;
  HostConfig: Record<string, unknown>;
  NetworkingConfig?: { EndpointsConfig: Record<string, { Aliases: string[] }> };
}

export function containerName(installation: string, revision: RevisionIdentity): string {
  return `occ-${installation}-${revision.agentId}-${revision.revisionId}`;
}

/** The Agent's own network (agent-network.ts), which every container of the Agent joins. */
export function networkName(installation: string, agentId: string): string {
  return `occ-${installation}-${agentId}`;
}

/** Labels that find every container of one installation (and, given them, of one Agent or revision). */
export function labelFilter(installation: string, extra: Partial<Record<'agentId' | 'revisionId', string>> = {}): string[] {
  return [
    `${LABELS.managedBy}=occ`,
    `${LABELS.installation}=${installation}`,
    ...(extra.agentId ? [`${LABELS.agentId}=${extra.agentId}`] : []),
    ...(extra.revisionId ? [`${LABELS.revisionId}=${extra.revisionId}`] : []),
  ];
}

/**
 * One revision's runtime container, hardened: non-root, read-only root filesystem, every
 * capability dropped, no new privileges, memory/CPU/pids limits, an init reaping OpenClaw's
 * children; the manifest delivered as bounded environment [P-2]; the home, temporary directory,
 * revision directory and OpenClaw state on private tmpfs mounts that vanish with the container
 * [P-8]; on the Agent's own network, its status and gateway published on the host's 127.0.0.1
 * only (runtime-ports.ts). Secret values appear only in `Env` (never the command line, never a
 * label). Docker restarts it after a crash or an engine restart (`unless-stopped`); OCC's stop
 * is final.
 */
export function containerSpec(input: ContainerSpecInput): ContainerSpec {
  const reserved = Object.keys(input.secrets).find(isReservedVariable);
  if (reserved !== undefined) throw new StartRefused('SECRET_VARIABLE_RESERVED', reserved);
  const { settings, revision } = input;
  const { env: network, binds } = mountNetworkFiles(input.network);
  const marketplaces = mountMarketplaces(input.codex?.marketplaces ?? []);
  const tmpfs = (size: string) => `rw,nosuid,nodev,size=${size},mode=0700,uid=${CONTAINER_USER},gid=${CONTAINER_USER}`;
  // Docker mounts a tmpfs noexec unless told otherwise. OpenClaw installs the Codex harness plugin
  // into the Agent's state only with its platform's codex executable, which it checks is
  // executable (X_OK): a Codex Agent's private area is `exec` (and larger: settings.ts); every other stays noexec.
  const privateArea = input.harness === 'codex' ? `${tmpfs(settings.codexHomeSize)},exec` : tmpfs(settings.homeSize);
  const memory = input.harness === 'codex' ? settings.codexMemoryBytes : settings.memoryBytes;
  const common = {
    ...network,
    HOME: CONTAINER_PATHS.home,
    TMPDIR: CONTAINER_PATHS.tmp,
    LANG: 'C.UTF-8',
    OCC_RUNTIME_MANIFEST_JSON: input.manifestJson,
    OCC_RUNTIME_REVISION_DIR: CONTAINER_PATHS.revisionDir,
    OCC_RUNTIME_STATE_DIR: CONTAINER_PATHS.stateDir,
    OCC_RUNTIME_STATUS_TOKEN: input.tokens.status,
    OCC_RUNTIME_TRANSPORT_SECRET: input.tokens.transport,
  };
  const appServerHalf = input.harness === 'codex' && input.codexRole === 'app-server';
  // The app-server container gets the codex_pat and nothing of OpenClaw's; the gateway container everything else.
  const environment: Record<string, string> = appServerHalf
    ? {
        ...common,
        ...codexAppServerEnvironment(),
        ...(input.codexPat !== undefined ? { [CODEX_PAT_ENVIRONMENT]: input.codexPat } : {}),
        ...codexRuntimeVariables(input.codex ? { ...input.codex, marketplaces: marketplaces.dirs } : undefined),
      }
    : {
        ...common,
        ...input.secrets,
        OCC_RUNTIME_GATEWAY_TOKEN: input.tokens.gateway,
        ...runtimePortEnvironment(),
        ...(input.catalogFile ? { OCC_RUNTIME_CATALOG: CONTAINER_PATHS.catalog } : {}),
        ...(input.npmRegistry ? { OCC_RUNTIME_NPM_REGISTRY: input.npmRegistry } : {}),
        ...(input.unselectedPlugins ? { OCC_RUNTIME_UNSELECTED_PLUGINS: input.unselectedPlugins } : {}),
        ...(input.harness === 'codex' ? codexGatewayEnvironment() : codexRuntimeVariables(input.codex ? { ...input.codex, marketplaces: marketplaces.dirs } : undefined)),
        ...(input.proceedDir !== undefined ? { OCC_RUNTIME_HOLD_BEFORE_GATEWAY: '1', OCC_RUNTIME_PROCEED_MARKER: `${CONTAINER_PATHS.proceed}/${PROCEED_MARKER}` } : {}),
      };
  const { ExposedPorts, PortBindings } = appServerHalf ? { ExposedPorts: {}, PortBindings: {} } : publishedPorts();
  const agentNetwork = networkName(settings.installation, revision.agentId);
  return {
    name: appServerHalf ? appServerContainerName(containerName(settings.installation, revision)) : containerName(settings.installation, revision),
    Image: settings.image,
    Entrypoint: input.entrypoint,
    User: `${CONTAINER_USER}:${CONTAINER_USER}`,
    Env: Object.entries(environment).map(([name, value]) => `${name}=${value}`),
    Labels: {
      [LABELS.managedBy]: 'occ',
      [LABELS.installation]: settings.installation,
      [LABELS.namespaceId]: revision.namespaceId,
      [LABELS.agentId]: revision.agentId,
      [LABELS.revisionId]: revision.revisionId,
      [LABELS.deliveredSecrets]: appServerHalf ? '' : Object.keys(input.secrets).sort().join(','),
      ...(appServerHalf ? { [LABELS.role]: 'app-server' } : {}),
    },
    // The runtime gives its gateway 20 s to stop.
    StopTimeout: 25,
    ExposedPorts,
    HostConfig: {
      // Never the host's network: its loopback holds OCC's API, its database and other Agents' ports.
      NetworkMode: agentNetwork,
      PortBindings,
      ReadonlyRootfs: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Privileged: false,
      Init: true,
      Memory: memory,
      MemorySwap: memory,
      NanoCpus: settings.nanoCpus,
      PidsLimit: settings.pidsLimit,
      RestartPolicy: { Name: 'unless-stopped' },
      // One private area: the image's entrypoint makes home, tmp, revision and state inside it (0700).
      Tmpfs: { [CONTAINER_PATHS.root]: privateArea, '/tmp': tmpfs(settings.homeSize) },
      Binds: appServerHalf
        ? [...binds, ...marketplaces.binds]
        : [
            ...binds,
            ...(input.harness === 'codex' ? [] : marketplaces.binds),
            ...(input.catalogFile ? [`${input.catalogFile}:${CONTAINER_PATHS.catalog}:ro`] : []),
            ...(input.proceedDir !== undefined ? [`${input.proceedDir}:${CONTAINER_PATHS.proceed}:ro`] : []),
          ],
      LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '3' } },
    },
    // The gateway container finds its app-server by this name on the Agent's own network.
    ...(appServerHalf ? { NetworkingConfig: { EndpointsConfig: { [agentNetwork]: { Aliases: [CODEX_APP_SERVER.alias] } } } } : {}),
  };
}

/** The local Codex marketplaces are directories of this host: each reaches the container read-only, in order. */
function mountMarketplaces(dirs: readonly string[]): { dirs: string[]; binds: string[] } {
  const inside = dirs.map((_, index) => `${CONTAINER_PATHS.codexMarketplaces}/${index}`);
  return { dirs: inside, binds: dirs.map((dir, index) => `${dir}:${inside[index]}:ro`) };
}

/**
 * The network variables that name a file or directory of this host (a CA bundle:
 * NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, SSL_CERT_DIR): mounted read-only under
 * /etc/occ/network/<variable>, the variable pointing there, so a runtime in a container trusts
 * what the local driver's would. Other values pass as they are.
 */
function mountNetworkFiles(network: Readonly<Record<string, string>>): { env: Record<string, string>; binds: string[] } {
  const env: Record<string, string> = {};
  const binds: string[] = [];
  for (const [name, value] of Object.entries(network)) {
    if (value.startsWith('/') && existsSync(value) && (statSync(value).isFile() || statSync(value).isDirectory())) {
      const target = `${CONTAINER_PATHS.network}/${name}`;
      binds.push(`${value}:${target}:ro`);
      env[name] = target;
    } else {
      env[name] = value;
    }
  }
  return { env, binds };
}
