import type { Agent, Approver, HarnessAuth, PluginMap } from '@occ/contracts';
import type { PageRequest } from './namespace-repository.ts';

export interface AgentWrite {
  name: string;
  configurationId: string;
  harnessAuth: HarnessAuth | null;
  plugins: PluginMap;
  pluginApprovers: Approver[] | null;
}

export interface AgentRepository {
  insert(a: AgentWrite & { id: string; namespaceId: string; harness: Agent['harness']; servicePrincipalId: string }): Promise<Agent>;
  get(namespaceId: string, id: string): Promise<Agent | null>;
  /** Locks the row for the rest of the transaction. */
  getForUpdate(namespaceId: string, id: string): Promise<Agent | null>;
  scan(namespaceId: string, page: PageRequest): Promise<Agent[]>;
  /** Writes the whole new desired state and increases the version by one. */
  update(namespaceId: string, id: string, a: AgentWrite): Promise<Agent>;
  delete(namespaceId: string, id: string): Promise<boolean>;
  /** Reserves the next revision number (1, 2, …); the row lock serializes concurrent deploys. */
  nextRevisionNumber(namespaceId: string, id: string): Promise<number>;
  setDesiredState(namespaceId: string, id: string, state: Agent['desiredState']): Promise<void>;
  /**
   * Moves the active pointer from `expected` to `next` only while the Agent still wants to run
   * (or, for `next = null`, while it wants to stop). False when either condition no longer holds.
   */
  compareAndSetActiveRevision(namespaceId: string, id: string, expected: string | null, next: string | null): Promise<boolean>;
}
