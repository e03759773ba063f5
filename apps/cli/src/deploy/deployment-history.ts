import { revisionLastFailure, type DeploymentEventData, type RuntimeView } from '@occ/contracts';
import { followDeploymentEvents, type ApiClient } from '@occ/contracts/client';
import { deploymentEventStream, type DeploymentRef } from './wait-for-deployment.ts';

/**
 * A finished deploy's events, replayed from its start to its outcome (the server reads them from
 * stored rows and the runtime's log). Past the server's per-connection bounds it resumes by
 * Last-Event-ID, like `occ deploy --wait`.
 */
async function replayDeploymentEvents(client: ApiClient, ref: DeploymentRef, signal: AbortSignal): Promise<DeploymentEventData[]> {
  const events: DeploymentEventData[] = [];
  await followDeploymentEvents({
    open: deploymentEventStream(client, ref),
    onEvent: (event) => void events.push(event),
    signal,
  });
  return events;
}

/**
 * The runtime view with the last failure `occ runtime` shows: for a revision whose deploy failed,
 * the newest failure of its replayed history (the ComputeDriver keeps its code in memory only, so
 * after an OCC restart the live view says none); any other revision's view as the driver gave it.
 */
export async function withDeploymentFailure(client: ApiClient, ref: DeploymentRef, view: RuntimeView): Promise<RuntimeView> {
  const { state } = (await client.call('getDeploymentStatus', { params: { ns: ref.ns, id: ref.agentId, rev: ref.revisionId } })).data;
  // Only a failed deploy's history is read: it has ended, so its replay ends at the outcome.
  if (state !== 'failed') return view;
  const events = await replayDeploymentEvents(client, ref, AbortSignal.timeout(60_000));
  return { ...view, lastFailureCode: revisionLastFailure(view.lastFailureCode, state, events) };
}
