import type { Harness } from '@occ/contracts';
import type { ApiClient } from '@occ/contracts/client';
import { useLoad } from '../ui/use-load.ts';
import type { KnownCapabilities } from './selection-editor.tsx';

/**
 * The plugin policy capabilities that decide which controls the editor offers: an existing
 * Agent's from `getAgentPluginCapabilities` (its own harness and driver); while creating, the
 * Installation's for the chosen harness. Unknown (undefined) while loading or when unreadable —
 * then every control is offered and the save is checked by the server.
 */
export function useCapabilities(api: ApiClient, agent: { ns: string; agentId: string } | null, harness: Harness): { capabilities: KnownCapabilities; error: unknown } {
  const load = useLoad(
    async (signal) => {
      if (agent) return (await api.call('getAgentPluginCapabilities', { params: { ns: agent.ns, id: agent.agentId }, signal })).data.pluginPolicies;
      return (await api.call('getInstallation', { signal })).data.capabilities.harnesses[harness].pluginPolicies;
    },
    [api, agent?.ns, agent?.agentId, harness],
  );
  if (load.status !== 'loaded') return { capabilities: undefined, error: load.status === 'error' ? load.error : undefined };
  return { capabilities: load.data, error: undefined };
}
