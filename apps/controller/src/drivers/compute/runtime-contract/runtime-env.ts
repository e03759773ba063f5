import { CODEX_PAT_ENVIRONMENT } from '@occ/contracts';
import { codexRuntimeVariables, type CodexRuntimeSettings } from './codex-settings.ts';
import { isReservedVariable, StartRefused } from './start-refusal.ts';

/** The Agent's directories on the runtime's host (kept across revisions, 0700). */
export interface AgentDirectories {
  state: string;
  home: string;
  tmp: string;
}

/** One revision's private directory on the runtime's host and its staged manifest. */
export interface RevisionDirectory {
  dir: string;
  manifest: string;
}

export interface RuntimeEnvInput {
  /** The controller's environment: only PATH and LANG are read from it. */
  base: NodeJS.ProcessEnv;
  agent: AgentDirectories;
  revision: RevisionDirectory;
  statusToken: string;
  gatewayToken: string;
  /** OCC_RUNTIME_TRANSPORT_SECRET: the runtime derives each startup's gateway↔app-server credential from it (every revision gets one). */
  transportSecret: string;
  catalog?: string | undefined;
  npmRegistry?: string | undefined;
  /** The Installation's OCC_OPENCLAW_UNSELECTED_PLUGINS (`disable`|`keep`); absent: the runtime's default (`disable`). */
  unselectedPlugins?: string | undefined;
  /** The Installation's Codex marketplaces and hosted-service bases (codex-settings.ts), as OCC_RUNTIME_CODEX_*. */
  codex?: CodexRuntimeSettings | undefined;
  /** The allowlisted network variables with OCC's overrides applied (network-settings.ts). */
  network: Readonly<Record<string, string>>;
  /** The variables this start delivers from the revision's Secret bindings (RuntimeStartAuthority). */
  secrets: Readonly<Record<string, string>>;
  /** The Agent's codex_pat this start delivers (RuntimeStartAuthority), as OCC_RUNTIME_CODEX_PAT; absent when the revision has none. */
  codexPat?: string | undefined;
  /** A candidate prepared beside the serving runtime: OCC_RUNTIME_HOLD_BEFORE_GATEWAY=1 (it waits in `prepared` for the go). */
  holdBeforeGateway?: boolean;
  /** The installation's npm content store (read-only to the runtime), as OCC_RUNTIME_NPM_CONTENT. */
  npmContent?: string | undefined;
}

/**
 * The runtime's whole environment, built from nothing: never the controller's own (which may
 * hold DATABASE_URL or OCC_SECRET_KEY), only the documented network variables, the delivered
 * Secrets (the runtime hands them to its gateway only), the Agent's codex_pat under its reserved
 * name, and the runtime contract. A delivered name that collides with a reserved one is refused
 * (SECRET_VARIABLE_RESERVED), so neither side can replace the other. Values live only in the
 * process environment: never a file, never a log.
 */
export function runtimeEnvironment(input: RuntimeEnvInput): Record<string, string> {
  const reserved = Object.keys(input.secrets).find(isReservedVariable);
  if (reserved !== undefined) throw new StartRefused('SECRET_VARIABLE_RESERVED', reserved);
  return {
    ...input.network,
    ...input.secrets,
    PATH: input.base.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: input.agent.home,
    TMPDIR: input.agent.tmp,
    LANG: input.base.LANG ?? 'C.UTF-8',
    OCC_RUNTIME_MANIFEST: input.revision.manifest,
    OCC_RUNTIME_REVISION_DIR: input.revision.dir,
    OCC_RUNTIME_STATE_DIR: input.agent.state,
    OCC_RUNTIME_STATUS_TOKEN: input.statusToken,
    OCC_RUNTIME_GATEWAY_TOKEN: input.gatewayToken,
    OCC_RUNTIME_TRANSPORT_SECRET: input.transportSecret,
    ...(input.codexPat !== undefined ? { [CODEX_PAT_ENVIRONMENT]: input.codexPat } : {}),
    ...(input.catalog ? { OCC_RUNTIME_CATALOG: input.catalog } : {}),
    ...(input.npmRegistry ? { OCC_RUNTIME_NPM_REGISTRY: input.npmRegistry } : {}),
    ...(input.unselectedPlugins ? { OCC_RUNTIME_UNSELECTED_PLUGINS: input.unselectedPlugins } : {}),
    ...(input.holdBeforeGateway ? { OCC_RUNTIME_HOLD_BEFORE_GATEWAY: '1' } : {}),
    ...(input.npmContent ? { OCC_RUNTIME_NPM_CONTENT: input.npmContent } : {}),
    ...codexRuntimeVariables(input.codex),
  };
}
