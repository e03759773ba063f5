import { KubernetesRenderError, type OwnerReference } from './types.ts';

/**
 * Owner references (decided here): the Agent's ServiceAccount is the root of everything the
 * driver creates for that Agent. It is created first (it owns nothing and is owned by nothing);
 * every other object of the Agent (NetworkPolicies, Service, Deployment, and each revision's
 * ConfigMap and Secret) names it as its controlling owner, so deleting the ServiceAccount lets
 * Kubernetes' garbage collector delete the rest. When the Agent is deleted the driver deletes
 * each object itself, the ServiceAccount last (remove-agent.ts); the collector is the backstop. The renderers take the owner as an argument, so a driver may
 * pass another parent in the same Kubernetes namespace instead (e.g. a custom resource per Agent).
 *
 * `blockOwnerDeletion: true` keeps a foreground delete of the owner waiting until its dependents
 * are gone; on clusters with the OwnerReferencesPermissionEnforcement admission plugin the
 * driver's Role then needs `update` on `serviceaccounts/finalizers`.
 */
export interface OwnerObject {
  apiVersion: string;
  kind: string;
  name: string;
  /** The owner's metadata.uid, as the API server returned it when the owner was created. */
  uid: string;
}

export function ownerReference(owner: OwnerObject): OwnerReference {
  if (!owner.apiVersion || !owner.kind) throw new KubernetesRenderError('KUBERNETES_RENDER_INPUT_INVALID', 'The owner needs an apiVersion and a kind.');
  if (owner.name.length > 253 || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(owner.name)) {
    throw new KubernetesRenderError('KUBERNETES_RENDER_INPUT_INVALID', 'The owner name is not a Kubernetes object name.');
  }
  if (!/^[0-9a-f-]{36}$/i.test(owner.uid)) throw new KubernetesRenderError('KUBERNETES_RENDER_INPUT_INVALID', "The owner uid must be the API server's metadata.uid (a UUID).");
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: true };
}
