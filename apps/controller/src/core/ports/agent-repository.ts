import type { Agent, Approver, HarnessAuth, PluginMap } from '@occ/contracts';
import type { AuditEventWrite } from './audit-repository.ts';
import type { AgentPhaseCount } from './metrics.ts';
import type { PageRequest } from './namespace-repository.ts';

export interface AgentWrite {
  name: string;
  configurationId: string;
  harnessAuth: HarnessAuth | null;
  plugins: PluginMap;
  pluginApprovers: Approver[] | null;
}

/** The fields whose validity does not depend on the Agent's current state. */
export interface AgentRename {
  name: string;
  configurationId?: string;
}

export interface AgentRepository {
  insert(a: AgentWrite & { id: string; namespaceId: string; harness: Agent['harness']; servicePrincipalId: string }): Promise<Agent>;
  get(namespaceId: string, id: string): Promise<Agent | null>;
  /** Locks the row for the rest of the transaction. */
  getForUpdate(namespaceId: string, id: string): Promise<Agent | null>;
  scan(namespaceId: string, page: PageRequest): Promise<Agent[]>;
  /** Writes the whole new desired state and increases the version by one. */
  update(namespaceId: string, id: string, a: AgentWrite): Promise<Agent>;
  /**
   * Compare-and-set in ONE statement (atomic on its own, no transaction needed): writes the
   * whole new desired state, increases the version by one and appends `audit`, but only while
   * the Agent is still at `version`. Null (and nothing written) when it moved on or is gone.
   */
  updateAtVersion(namespaceId: string, id: string, version: number, a: AgentWrite, audit: AuditEventWrite): Promise<Agent | null>;
  /**
   * A rename (with an optional configuration rebind) in ONE statement, needing no read first:
   * merges the change into the row, increases the version by one (only while it is
   * `expectedVersion`, when given) and appends `audit`, whose details the statement completes
   * from the written row as the Agent's audit summary (configurationId, harnessAuthSecretId,
   * sorted pluginIds, version); keys already in `audit.details` win. Null (and nothing written)
   * when the Agent is gone or at another version.
   */
  renameInPlace(namespaceId: string, id: string, change: AgentRename, expectedVersion: number | undefined, audit: AuditEventWrite): Promise<Agent | null>;
  delete(namespaceId: string, id: string): Promise<boolean>;
  /** Reserves the next revision number (1, 2, …); the row lock serializes concurrent deploys. */
  nextRevisionNumber(namespaceId: string, id: string): Promise<number>;
  setDesiredState(namespaceId: string, id: string, state: Agent['desiredState']): Promise<void>;
  /**
   * Moves the active pointer from `expected` to `next` only while the Agent still wants to run
   * (or, for `next = null`, while it wants to stop). False when either condition no longer holds.
   */
  compareAndSetActiveRevision(namespaceId: string, id: string, expected: string | null, next: string | null): Promise<boolean>;
  /** Every Agent of the Installation counted by phase and by the ComputeDriver of its latest revision (the metrics' gauge; AGENT_PHASES says how a phase is read). */
  countByPhase(): Promise<AgentPhaseCount[]>;
}
