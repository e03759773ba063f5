import { deploymentEventDetail, deploymentEventLabel, type DeploymentEventData } from '@occ/contracts';

/**
 * Deployment events as terminal lines, for a person following `occ deploy --wait`. The words are
 * @occ/contracts' (deployment-words.ts, shared with the console); this file only lines them up.
 */

// The names the CLI's tests know these shared words by.
export { deploymentActivityAfter as activityAfter, pluginWarningText as warningText } from '@occ/contracts';

/** Seconds since following started, right-aligned so the lines stay in columns. */
export function elapsed(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)}s`.padStart(6);
}

/**
 * One line per event: elapsed seconds, a label (the phase of a step — plan, install, refresh,
 * verify, gateway — or the event's type), and what happened in words.
 */
export function describeEvent(event: DeploymentEventData, elapsedMs: number): string {
  return `${elapsed(elapsedMs)}  ${deploymentEventLabel(event).padEnd(10)} ${deploymentEventDetail(event)}`;
}
