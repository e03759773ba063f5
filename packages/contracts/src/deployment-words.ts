import type { DeploymentEventData, DeploymentStepName } from './resources/deployment-events.ts';
import type { PluginWarningCode } from './resources/revision.ts';
import type { StoredReasonCode } from './work-outcomes.ts';

/**
 * Deployments in words, for a person: the one wording the CLI (`occ deploy --wait`, `occ status`)
 * and the console share. Pure, no I/O and no layout: each caller decides where the words go
 * (a spinner, plain lines, a live region) and how they are lined up.
 */

/** What each runtime startup step did, once it finished. */
export const DEPLOYMENT_STEP_WORDS: Record<DeploymentStepName, string> = {
  'read-config': 'read the configuration',
  'read-plugins': 'read the plugin selections',
  plan: 'planned the plugins',
  'write-config': 'wrote the configuration',
  'detect-install-flags': 'checked the installer',
  install: 'plugins installed',
  'read-tool-inventory': 'read the tool inventory',
  'restore-config': 'restored the configuration',
  'registry-refresh': 'refreshed the plugin registry',
  'uninstall-stale': 'removed plugins no longer selected',
  'link-skills': 'linked the skills',
  'verify-installs': 'verified the installed plugins',
  'verify-config': 'verified the configuration',
  gateway: 'gateway started',
};

/** The plugin warnings' meanings (docs/deployments.md): the deploy succeeded, with this caveat. */
export const PLUGIN_WARNING_WORDS: Record<PluginWarningCode, string> = {
  PLUGIN_INSTALL_FAILED: 'could not be installed; the Agent runs without it',
  PLUGIN_AUTH_REQUIRED: 'needs sign-in: it is installed, but its apps need authentication before their tools work',
};

/** What one plugin's install came to. */
export const PLUGIN_INSTALL_RESULT_WORDS = { done: 'installed', rejected: 'rejected by the installer', unreachable: 'unreachable' } as const;

/**
 * Every stored reason code of a deployment (`reasonCode`, `lastAttempt.code`, `error.code`, a
 * failed step's `code`) in words: the "Meaning" column of docs/deployments.md. Keyed by the closed
 * registry, so a new code does not compile until it has words.
 */
export const REASON_CODE_WORDS: Record<StoredReasonCode, string> = {
  REVISION_ACTIVATED: 'the revision is ready and is the one the Agent runs',
  REVISION_ALREADY_ACTIVE: 'a resumed attempt found the revision already chosen to run; it finished activating it',
  AGENT_STOPPED: 'the runtime was stopped; no revision is active now',
  AGENT_GONE: 'the stop found no Agent: nothing is left to stop',
  AGENT_REMOVED: 'the Agent was deleted and what its compute target held for it was removed',
  ACTIVE_REVISION_ENSURED: "the periodic check asked the compute target to run the Agent's active revision, which it does unless something of the Agent already runs",
  ENSURE_NOT_NEEDED: 'the periodic check did nothing: the Agent was stopped, deleted or moved off this compute target since, or other work of the Agent was under way',
  REVISION_SUPERSEDED: 'a newer revision of the Agent was deployed first',
  REVISION_STOPPED: 'the Agent was stopped before the revision became active',
  STOP_SUPERSEDED: 'a deploy wanted the Agent running again before the stop ran',
  INVALID_TARGET: 'the revision or its Agent no longer exists',
  COMPUTE_DRIVER_MISMATCH: 'the revision was made for another compute target',
  INVALID_ADMITTED_REVISION: 'the compute target cannot run this revision',
  ACTOR_REVOKED: 'the principal that deployed the revision no longer exists',
  AUTHORIZATION_DENIED: 'a grant the deploy needs was revoked',
  CONVERGENCE_DEADLINE_EXCEEDED: 'the revision did not become ready before the convergence deadline',
  ACTIVE_REVISION_CHANGED: 'another revision became the active one while the work was under way',
  REVISION_FINALIZATION_INCOMPLETE: 'the revision became the active one, but starting it or removing the earlier revisions failed',
  WORKER_ERROR: 'the worker failed unexpectedly',
  LEASE_EXPIRED: 'the worker doing it stopped answering in time; another worker took it over',
  RUNTIME_FAILED: 'the runtime did not start, with no code OCC knows',
  RUNTIME_EXITED: 'the runtime process exited before it was ready',
  RUNTIME_IMAGE_UNAVAILABLE: 'the runtime image is not on the compute target',
  RUNTIME_MANIFEST_TOO_LARGE: 'the runtime manifest is larger than the compute target delivers',
  COMPUTE_REQUEST_REJECTED: 'the compute target refused what OCC asked it to create',
  SSH_HOST_UNCONFIGURED: "the Agent's Namespace has no SSH host and the installation sets no default",
  SSH_HOST_INVALID: "the Namespace's saved SSH host can no longer be used: its private key's Secret holds no usable key",
  SSH_HOST_UNREACHABLE: 'the SSH host did not answer or the connection dropped',
  SSH_HOST_KEY_MISMATCH: 'the SSH host presented another key than the pinned one: OCC did not log in',
  SSH_AUTH_REFUSED: "the SSH host refused OCC's client key for the host's user",
  SSH_COMMAND_TIMEOUT: 'a command on the SSH host did not finish in time',
  SSH_HOST_DISK_FULL: "the SSH host's disk is full where the Agents' directories are",
  SSH_STAGING_FAILED: "the revision's files could not be written on the SSH host",
  RUNTIME_TOOLCHAIN_MISSING: "OCC's runtime is not installed at `OCC_SSH_WORKSPACE` on the SSH host",
  RUNTIME_START_FAILED: 'the SSH host could not start the runtime process',
  RUNTIME_ENVIRONMENT_INVALID: "the runtime's environment is incomplete or malformed",
  RUNTIME_MANIFEST_INVALID: 'the runtime manifest is malformed',
  RUNTIME_CATALOG_INVALID: 'the plugin catalog the runtime was given is malformed',
  PLUGIN_POLICY_INVALID: 'the plugin policy cannot be translated for the runtime',
  PLUGIN_INSTALL_ERROR: 'installing the plugins failed as a whole',
  PLUGIN_SOURCE_UNREACHABLE: "a plugin's package source could not be reached",
  PLUGIN_REGISTRY_REFRESH_FAILED: "refreshing the runtime's plugin registry failed",
  PLUGIN_NOT_IN_CATALOG: 'a selected Codex plugin is in none of the marketplaces the app-server lists',
  PLUGIN_NOT_SELECTED: 'the serving gateway loaded a plugin with tools that no selection names',
  BACKGROUND_JOB_NOT_CONFIGURED: 'the serving gateway scheduled background work by itself that the Configuration does not ask for',
  RUNTIME_DEGRADED: 'the gateway said it started on degraded state: a state migration or a plugin repair failed',
  CODEX_APP_SERVER_FAILED: 'the dedicated codex app-server failed: it exited, timed out or answered outside its protocol',
  CODEX_SIGN_IN_FAILED: "the Agent's codex_pat did not sign the codex app-server in: the identity service refused it or could not be reached",
  PLUGIN_VERIFICATION_FAILED: 'the installed plugins are not the ones admitted',
  CONFIG_VERIFICATION_FAILED: 'the effective configuration differs from the translated policy',
  RUNTIME_CONFIG_WRITE_FAILED: 'the runtime could not write its configuration',
  GATEWAY_START_FAILED: 'the OpenClaw gateway did not start',
  GATEWAY_PORT_TAKEN: 'another process took the loopback port chosen for the gateway',
  RUNTIME_STARTUP_FAILED: 'the runtime failed unexpectedly while preparing',
  REVISION_UNAVAILABLE: 'the start was denied: the Agent or this revision no longer exists',
  SECRET_ACCESS_REVOKED: "the start was denied: the Agent's principal lost secret:operate on a bound Secret",
  SECRET_RESERVED: "the start was denied: a bound Secret is the Namespace's SSH host client key, which no Agent receives",
  SECRET_UNAVAILABLE: 'the start was denied: a bound Secret no longer exists',
  SECRET_VARIABLE_RESERVED: 'a Secret binding names a variable the runtime reserves',
  RUNTIME_START_UNAVAILABLE: 'the control plane could not be asked to authorize the start',
  RUNTIME_CONFINEMENT_UNAVAILABLE: 'this host cannot confine the runtime (Linux namespaces); OCC starts no unconfined Agent',
  REVISION_INCOMPLETE: 'not ready yet, for no reason OCC knows',
  RUNTIME_STARTING: 'the runtime is still preparing',
  RUNTIME_RESTARTING: 'the runtime is being restarted',
  RUNTIME_STATUS_UNTRUSTED: "the runtime's status does not match the process OCC started",
  GATEWAY_STARTING: 'the gateway runs but does not serve yet',
  REVISION_UNSCHEDULABLE: 'compute cannot place the revision yet',
};

/** A reason code's words, or undefined for a code outside the registry (shown as the bare code). */
export function reasonCodeWords(code: string | null | undefined): string | undefined {
  return code && Object.hasOwn(REASON_CODE_WORDS, code) ? REASON_CODE_WORDS[code as StoredReasonCode] : undefined;
}

/** "codex:gmail needs sign-in: … (PLUGIN_AUTH_REQUIRED)": one warning, with its code for searching the docs. */
export function pluginWarningText(pluginId: string | undefined, code: string | undefined): string {
  const words = (PLUGIN_WARNING_WORDS as Record<string, string>)[code ?? ''] ?? 'has a warning';
  return `${pluginId ?? 'a plugin'} ${words} (${code ?? 'unknown'})`;
}

/** What is going on after this event (a spinner's text, a live region's announcement); undefined keeps the current one. */
export function deploymentActivityAfter(event: DeploymentEventData): string | undefined {
  switch (event.type) {
    case 'admitted':
      return 'waiting for a worker';
    case 'claimed':
      return `attempt ${event.attempt ?? 1}: starting the runtime`;
    case 'step':
      if (event.code) return 'waiting for the next attempt';
      if (event.phase === 'plan') return 'planning';
      if (event.phase === 'install') return 'installing plugins';
      if (event.phase === 'refresh') return 'refreshing the plugin registry';
      if (event.phase === 'verify') return 'verifying';
      return 'waiting for the Agent to become active';
    default:
      return undefined;
  }
}

/** An event's label: the phase of a step (plan, install, refresh, verify, gateway; `failed` for a failed start), else its type. */
export function deploymentEventLabel(event: DeploymentEventData): string {
  if (event.type === 'step') return event.code ? 'failed' : (event.phase ?? 'step');
  return event.type;
}

/** What happened, in words. */
export function deploymentEventDetail(event: DeploymentEventData): string {
  switch (event.type) {
    case 'admitted':
      return `revision ${event.revision ?? '?'} admitted`;
    case 'claimed':
      return event.attempt && event.attempt > 1 ? `attempt ${event.attempt} (a retry) claimed by a worker` : 'claimed by a worker';
    case 'step':
      if (event.code) return `the runtime did not start: ${event.code}`;
      if (event.pluginId) return `${event.pluginId}: ${PLUGIN_INSTALL_RESULT_WORDS[event.result ?? 'done']}`;
      return event.step ? DEPLOYMENT_STEP_WORDS[event.step] : 'step finished';
    case 'warning':
      return pluginWarningText(event.pluginId, event.code);
    case 'succeeded':
      return `the revision is active (${event.reasonCode ?? 'REVISION_ACTIVATED'})`;
    case 'failed':
      return `the deploy failed (${event.reasonCode ?? 'unknown'})`;
    case 'superseded':
      return `a newer revision was admitted first (${event.reasonCode ?? 'REVISION_SUPERSEDED'})`;
    case 'stopped':
      return `the Agent was stopped first (${event.reasonCode ?? 'REVISION_STOPPED'})`;
  }
}

/** The event types that end a deployment (and its event stream). */
export const DEPLOYMENT_OUTCOME_TYPES: ReadonlySet<DeploymentEventData['type']> = new Set<DeploymentEventData['type']>(['succeeded', 'failed', 'superseded', 'stopped']);

export function isDeploymentOutcome(event: DeploymentEventData): boolean {
  return DEPLOYMENT_OUTCOME_TYPES.has(event.type);
}
