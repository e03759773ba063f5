import type { DeploymentEventData } from './resources/deployment-events.ts';
import type { DeploymentStatus } from './resources/revision.ts';

/**
 * What a deployment's events (replayed from the start, or followed live) say about it, for the
 * CLI and the console alike. The replay is read from stored rows and the runtime's log, so these
 * answers survive an OCC restart, unlike a ComputeDriver's memory of its runtimes.
 */

/**
 * The code of the newest failure in the history: a `failed` outcome's reason code, else the
 * newest failed start (a `step` with a code); null when nothing failed.
 */
export function lastDeploymentFailure(events: readonly DeploymentEventData[]): string | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.type === 'failed' && event.reasonCode) return event.reasonCode;
    if (event.type === 'step' && event.code) return event.code;
  }
  return null;
}

/**
 * A revision's "last failure", as the live runtime view shows it. For a revision whose deploy
 * failed, its history's newest failure: the live view's `lastFailureCode` is the ComputeDriver's
 * memory, which an OCC restart empties (it then says none for a revision that never ran). For
 * any other revision, the live code (a succeeded deploy's earlier failed attempts are not the
 * runtime's failure; null once a start served).
 */
export function revisionLastFailure(liveCode: string | null, deployState: DeploymentStatus['state'], events: readonly DeploymentEventData[]): string | null {
  if (deployState !== 'failed') return liveCode;
  return lastDeploymentFailure(events) ?? liveCode;
}
