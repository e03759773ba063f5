import { revisionLastFailure, type DeploymentStatus, type RuntimeView } from '@occ/contracts';
import type { ReceivedEvent } from './use-deployment-progress.ts';

/**
 * The "Last failure" of a revision's runtime facts: the live view's code, or for a failed deploy
 * the newest failure of the events the Progress list replayed (stored, so it is still there after
 * an OCC restart, when the live view knows nothing of a revision that never ran).
 */
export function runtimeLastFailure(view: RuntimeView, status: DeploymentStatus, events: readonly ReceivedEvent[]): string | null {
  return revisionLastFailure(
    view.lastFailureCode,
    status.state,
    events.map((event) => event.data),
  );
}
