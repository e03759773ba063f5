/** The fixed codes a failed startup publishes (`error.code`); the runtime raises only these. */
export const STARTUP_FAILURE_CODES = [
  'RUNTIME_ENVIRONMENT_INVALID',
  'RUNTIME_MANIFEST_INVALID',
  'RUNTIME_CATALOG_INVALID',
  'PLUGIN_POLICY_INVALID',
  'PLUGIN_INSTALL_ERROR',
  /** A plugin's package source could not be used: network, DNS, TLS, proxy, registry errors, the install deadline or a signal. */
  'PLUGIN_SOURCE_UNREACHABLE',
  'PLUGIN_REGISTRY_REFRESH_FAILED',
  /** A selected Codex plugin is in none of the marketplaces the app-server lists. */
  'PLUGIN_NOT_IN_CATALOG',
  /** The dedicated `codex app-server` could not be started, exited, timed out or answered outside its protocol. */
  'CODEX_APP_SERVER_FAILED',
  /** The Agent's codex_pat did not sign the app-server in: the identity service refused it or could not be reached. */
  'CODEX_SIGN_IN_FAILED',
  'PLUGIN_VERIFICATION_FAILED',
  'CONFIG_VERIFICATION_FAILED',
  'RUNTIME_CONFIG_WRITE_FAILED',
  'GATEWAY_START_FAILED',
  /** Another process listened on the loopback port chosen for the gateway (nothing was sent to it). */
  'GATEWAY_PORT_TAKEN',
  'RUNTIME_STARTUP_FAILED',
  /** The serving gateway loaded a plugin with tools that no selection names (nor the Configuration itself turns on). */
  'PLUGIN_NOT_SELECTED',
  /** OpenClaw or a plugin scheduled a job by itself (heartbeat, self-learning review…) that the Configuration does not ask for. */
  'BACKGROUND_JOB_NOT_CONFIGURED',
  /** The gateway said it started on degraded state: a state migration or a plugin repair failed. */
  'RUNTIME_DEGRADED',
] as const;
export type StartupFailureCode = (typeof STARTUP_FAILURE_CODES)[number];

/**
 * Startup failures a retry cannot cure: each is decided by what the runtime is given — the
 * immutable revision (selections, Configuration, manifest) and the installation's own settings
 * and catalog — and by nothing that changes between attempts. The worker fails the deployment
 * at once instead of spending its attempts (docs/deployments.md, "Reason codes"):
 * - RUNTIME_ENVIRONMENT_INVALID: the environment the ComputeDriver builds from the installation's
 *   settings is incomplete or malformed; the next start gets the same one.
 * - RUNTIME_MANIFEST_INVALID: the manifest is the revision's, written by the worker; it does not change.
 * - RUNTIME_CATALOG_INVALID: the catalog is the installation's file (or the bundled one) and
 *   another release's or malformed until the operator replaces it and redeploys.
 * - PLUGIN_POLICY_INVALID: the selections do not fit the pinned catalog or the Configuration;
 *   translation is a pure function of both.
 * - PLUGIN_NOT_IN_CATALOG: the app-server answered that no marketplace lists the plugin (an
 *   unknown package); a transport failure is CODEX_APP_SERVER_FAILED instead, and is retried.
 * Everything else (sources, installs, registry, verification, gateway, app-server, sign-in) can
 * depend on the network, the host or timing, and is retried.
 */
export const PERMANENT_STARTUP_FAILURE_CODES = [
  'RUNTIME_ENVIRONMENT_INVALID',
  'RUNTIME_MANIFEST_INVALID',
  'RUNTIME_CATALOG_INVALID',
  'PLUGIN_POLICY_INVALID',
  'PLUGIN_NOT_IN_CATALOG',
] as const satisfies readonly StartupFailureCode[];
export type PermanentStartupFailureCode = (typeof PERMANENT_STARTUP_FAILURE_CODES)[number];

export function isPermanentStartupFailure(code: string): code is PermanentStartupFailureCode {
  return (PERMANENT_STARTUP_FAILURE_CODES as readonly string[]).includes(code);
}
