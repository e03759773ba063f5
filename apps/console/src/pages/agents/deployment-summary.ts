import type { Agent, DeploymentStatus } from '@occ/contracts';
import type { ApiClient } from '@occ/contracts/client';

/**
 * One Agent's deployment at a glance, from the cheapest honest source the API has: every deploy
 * admits a revision, so the newest revision (revisions list newest first, one item) is the last
 * deployment, and its stored status says how it went. No revision at all means never deployed.
 */
export interface DeploymentSummary {
  /** The newest revision and its deployment status; null when the Agent was never deployed. */
  last: DeploymentStatus | null;
  /** The active revision's number; null when no revision is active. */
  activeRevision: number | null;
}

export async function loadDeploymentSummary(api: ApiClient, ns: string, agent: Agent, signal: AbortSignal): Promise<DeploymentSummary> {
  const params = { ns, id: agent.id };
  const page = await api.call('listAgentRevisions', { params, query: { limit: 1 }, signal });
  const newest = page.data.items[0];
  if (!newest) return { last: null, activeRevision: null };
  const status = (rev: string) => api.call('getDeploymentStatus', { params: { ...params, rev }, signal }).then((result) => result.data);
  const activeId = agent.activeRevisionId;
  // Usually the active revision is the newest (one status request); when an older one is still
  // active (a newer deploy failed or is running), its status also names its number — asked in parallel.
  const [last, active] = await Promise.all([status(newest.id), activeId === null || activeId === newest.id ? Promise.resolve(null) : status(activeId)]);
  const activeRevision = activeId === null ? null : activeId === newest.id ? newest.revision : (active?.revision ?? null);
  return { last, activeRevision };
}
