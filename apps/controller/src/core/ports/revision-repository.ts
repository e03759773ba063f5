import type { AgentRevision } from '@occ/contracts';
import type { PageRequest } from './namespace-repository.ts';

export interface RevisionRepository {
  insert(revision: AgentRevision): Promise<AgentRevision>;
  get(namespaceId: string, agentId: string, id: string): Promise<AgentRevision | null>;
  /** Newest first; `after` is the revision number of the last row of the previous page. */
  scan(namespaceId: string, agentId: string, page: PageRequest): Promise<AgentRevision[]>;
  /** The highest revision number admitted for the Agent (0 when none). */
  latestNumber(agentId: string): Promise<number>;
  /**
   * Revisions of the Agent other than `keepId` that compute may still run: their reconcile work
   * was claimed at least once (so compute may have prepared them) and no retire was recorded since.
   */
  retirable(agentId: string, keepId: string | null): Promise<{ id: string; revision: number }[]>;
  /** Records that compute retired the revision (it leaves `retirable`). */
  markRetired(agentId: string, id: string): Promise<void>;
  /** The revisions Agents that want to run point at, on one ComputeDriver (what should run there now). */
  activeOnCompute(computeDriverId: string): Promise<{ namespaceId: string; agentId: string; revisionId: string }[]>;
  /** Removes every revision of an Agent that is being deleted (nothing else deletes revisions). */
  deleteForAgent(agentId: string): Promise<number>;
}
