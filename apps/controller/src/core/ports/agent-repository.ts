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
}
