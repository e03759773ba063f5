import type { DeploymentEventData, DeploymentStepName, PluginWarningCode } from '@occ/contracts';

/**
 * Deployment events in words, for a person following `occ deploy --wait`. Pure: the display
 * decides where the words go (a spinner, plain lines or nowhere).
 */

/** What each runtime startup step did, once it finished. */
const STEP_WORDS: Record<DeploymentStepName, string> = {
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
export const WARNING_WORDS: Record<PluginWarningCode, string> = {
  PLUGIN_INSTALL_FAILED: 'could not be installed; the Agent runs without it',
  PLUGIN_AUTH_REQUIRED: 'needs sign-in: it is installed, but its apps need authentication before their tools work',
};

const INSTALL_RESULT_WORDS = { done: 'installed', rejected: 'rejected by the installer', unreachable: 'unreachable' } as const;

/** What is going on after this event (the spinner's text); undefined keeps the current one. */
export function activityAfter(event: DeploymentEventData): string | undefined {
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

export function warningText(pluginId: string | undefined, code: string | undefined): string {
  const words = WARNING_WORDS[code as PluginWarningCode] ?? 'has a warning';
  return `${pluginId ?? 'a plugin'} ${words} (${code ?? 'unknown'})`;
}

/** The label column: the phase for a step, else the event's type. */
function labelOf(event: DeploymentEventData): string {
  if (event.type === 'step') return event.code ? 'failed' : (event.phase ?? 'step');
  return event.type;
}

function detailOf(event: DeploymentEventData): string {
  switch (event.type) {
    case 'admitted':
      return `revision ${event.revision ?? '?'} admitted`;
    case 'claimed':
      return event.attempt && event.attempt > 1 ? `attempt ${event.attempt} (a retry) claimed by a worker` : 'claimed by a worker';
    case 'step':
      if (event.code) return `the runtime did not start: ${event.code}`;
      if (event.pluginId) return `${event.pluginId}: ${INSTALL_RESULT_WORDS[event.result ?? 'done']}`;
      return event.step ? STEP_WORDS[event.step] : 'step finished';
    case 'warning':
      return warningText(event.pluginId, event.code);
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

/** Seconds since following started, right-aligned so the lines stay in columns. */
export function elapsed(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)}s`.padStart(6);
}

/**
 * One line per event: elapsed seconds, a label (the phase of a step — plan, install, refresh,
 * verify, gateway — or the event's type), and what happened in words.
 */
export function describeEvent(event: DeploymentEventData, elapsedMs: number): string {
  return `${elapsed(elapsedMs)}  ${labelOf(event).padEnd(10)} ${detailOf(event)}`;
}

export const OUTCOMES = new Set<DeploymentEventData['type']>(['succeeded', 'failed', 'superseded', 'stopped']);

export function isOutcome(event: DeploymentEventData): boolean {
  return OUTCOMES.has(event.type);
}
