import { followDeploymentEvents, type ApiClient, type FollowEnd } from '@occ/contracts/client';
import type { ProgressDisplay } from './progress-display.ts';

export interface DeploymentRef {
  ns: string;
  agentId: string;
  revisionId: string;
}

/** Opens (or, with a Last-Event-ID, resumes) one revision's deployment event stream. */
export function deploymentEventStream(client: ApiClient, ref: DeploymentRef) {
  return (lastEventId: string | undefined, signal: AbortSignal) =>
    client.stream('streamDeploymentEvents', {
      params: { ns: ref.ns, id: ref.agentId, rev: ref.revisionId },
      signal,
      ...(lastEventId ? { lastEventId } : {}),
    });
}

/** Follows one revision's deployment events on the display until its outcome or Ctrl-C. */
export async function waitForDeployment(client: ApiClient, ref: DeploymentRef, display: ProgressDisplay, signal: AbortSignal): Promise<FollowEnd> {
  try {
    return await followDeploymentEvents({
      open: deploymentEventStream(client, ref),
      onEvent: (event) => display.event(event),
      signal,
    });
  } finally {
    display.stop();
  }
}
