import { followDeploymentEvents, type ApiClient, type FollowEnd } from '@occ/contracts/client';
import type { ProgressDisplay } from './progress-display.ts';

export interface DeploymentRef {
  ns: string;
  agentId: string;
  revisionId: string;
}

/** Follows one revision's deployment events on the display until its outcome or Ctrl-C. */
export async function waitForDeployment(client: ApiClient, ref: DeploymentRef, display: ProgressDisplay, signal: AbortSignal): Promise<FollowEnd> {
  try {
    return await followDeploymentEvents({
      open: (lastEventId, connectionSignal) => client.stream('streamDeploymentEvents', {
        params: { ns: ref.ns, id: ref.agentId, rev: ref.revisionId },
        signal: connectionSignal,
        ...(lastEventId ? { lastEventId } : {}),
      }),
      onEvent: (event) => display.event(event),
      signal,
    });
  } finally {
    display.stop();
  }
}
