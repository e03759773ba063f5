import type { RemovedResource } from '../../../core/ports/compute-driver.ts';
import type { KubernetesApi, ManagedKind } from './api.ts';
import { agentObjectNames, LABEL_AGENT_ID } from './render/index.ts';

/**
 * The kinds the driver creates for an Agent, in the order they go: what runs first (its
 * Deployments: their pods go with them, by the garbage collector, each stopped gracefully by its
 * kubelet; the driver's Role may not delete pods), what reaches it, each revision's manifest and
 * Secret, its NetworkPolicies, and last the ServiceAccount that owns them all (render/owner.ts).
 */
const KINDS: readonly ManagedKind[] = ['Deployment', 'Service', 'ConfigMap', 'Secret', 'NetworkPolicy', 'ServiceAccount'];

/**
 * Everything the cluster holds for a deleted Agent in the driver's namespace, deleted: every
 * object of those kinds labelled with the Agent's id, and its ServiceAccount by name. Each is
 * deleted explicitly rather than left to the garbage collector behind the ServiceAccount, so
 * nothing of the Agent outlives the removal on a cluster whose collector lags (or an object that
 * lost its owner reference); the collector stays the backstop. Idempotent: what is already gone is skipped. Answers what
 * it deleted (kinds and names, for the audit event).
 */
export async function removeAgentObjects(api: KubernetesApi, namespace: string, agentId: string, signal: AbortSignal): Promise<RemovedResource[]> {
  const removed: RemovedResource[] = [];
  const owner = agentObjectNames(agentId).serviceAccount;
  for (const kind of KINDS) {
    signal.throwIfAborted();
    const names = new Set((await api.list(kind, namespace, `${LABEL_AGENT_ID}=${agentId}`)).filter((o) => !o.metadata.deletionTimestamp).map((o) => o.metadata.name));
    if (kind === 'ServiceAccount' && (await api.read('ServiceAccount', namespace, owner))) names.add(owner);
    for (const name of names) {
      signal.throwIfAborted();
      await api.delete(kind, namespace, name);
      removed.push({ kind, name });
    }
  }
  return removed;
}
