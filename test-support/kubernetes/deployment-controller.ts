import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';
import { deleteObject } from './deletion.ts';
import { resourceFor } from './resources.ts';
import { nowTimestamp, type ObjectStore } from './store.ts';

const deployments = resourceFor('Deployment');
const pods = resourceFor('Pod');
const ACTOR = { verb: 'create', actor: 'deployment-controller' } as const;
const SAFE = 'bcdfghjklmnpqrstvwxz2456789';

/** A pod template's hash, spelled with the real controller's safe alphabet (10 characters). */
function templateHash(template: unknown): string {
  const digest = createHash('sha256').update(canonicalJson(template)).digest();
  return Array.from(digest.subarray(0, 10), (byte) => SAFE[byte % SAFE.length]).join('');
}

/**
 * Keeps each Deployment's `spec.replicas` pods of its CURRENT template, owned by the Deployment
 * itself (the fake skips ReplicaSets: pods carry the `pod-template-hash` label and an
 * ownerReference to the Deployment). Recreate: every old pod is deleted and GONE (process
 * stopped, object removed) before a pod of the new template is created. RollingUpdate is
 * simplified: new pods are created and old ones deleted at once. Writes the Deployment's status.
 */
export function startDeploymentController(store: ObjectStore, gracefulPods: boolean): () => void {
  let scheduled = false;
  let stopped = false;
  const schedule = () => {
    if (scheduled || stopped) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      if (!stopped) for (const deployment of store.list(deployments)) reconcile(store, deployment, gracefulPods);
    });
  };
  const unsubscribe = store.subscribe((change) => {
    if (change.resource === deployments || change.resource === pods) schedule();
  });
  schedule();
  return () => {
    stopped = true;
    unsubscribe();
  };
}

function reconcile(store: ObjectStore, deployment: any, gracefulPods: boolean): void {
  const { namespace, uid } = deployment.metadata;
  const hash = templateHash(deployment.spec.template);
  const owned = store.list(pods, namespace).filter((pod) => (pod.metadata.ownerReferences ?? []).some((o: any) => o.uid === uid));
  const isCurrent = (pod: any) => pod.metadata.labels?.['pod-template-hash'] === hash;
  const live = owned.filter((pod) => !pod.metadata.deletionTimestamp);
  const old = live.filter((pod) => !isCurrent(pod));
  const current = live.filter(isCurrent);
  const replicas: number = deployment.spec.replicas ?? 1;
  const remove = (pod: any) => deleteObject(store, pods, namespace, pod.metadata.name, 'deployment-controller', gracefulPods);

  const recreate = deployment.spec.strategy?.type === 'Recreate';
  for (const pod of old) remove(pod);
  const oldRemaining = owned.some((pod) => !isCurrent(pod));
  if (!(recreate && oldRemaining)) {
    for (let i = current.length; i < replicas; i++) store.create(pods, podFor(deployment, hash), ACTOR);
  }
  for (const pod of current.slice(replicas).reverse()) remove(pod);
  writeStatus(store, deployment, hash);
}

function podFor(deployment: any, hash: string): any {
  const template = structuredClone(deployment.spec.template);
  const suffix = Array.from({ length: 5 }, () => SAFE[Math.floor(Math.random() * SAFE.length)]).join('');
  return {
    metadata: {
      name: `${deployment.metadata.name}-${hash}-${suffix}`,
      generateName: `${deployment.metadata.name}-${hash}-`,
      namespace: deployment.metadata.namespace,
      labels: { ...(template.metadata?.labels ?? {}), 'pod-template-hash': hash },
      ...(template.metadata?.annotations ? { annotations: template.metadata.annotations } : {}),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name, uid: deployment.metadata.uid, controller: true, blockOwnerDeletion: true }],
    },
    spec: { ...template.spec, serviceAccountName: template.spec.serviceAccountName ?? 'default', serviceAccount: template.spec.serviceAccountName ?? 'default' },
    status: { phase: 'Pending', qosClass: 'BestEffort' },
  };
}

function writeStatus(store: ObjectStore, deployment: any, hash: string): void {
  const fresh = store.get(deployments, deployment.metadata.namespace, deployment.metadata.name);
  if (!fresh) return;
  const live = store
    .list(pods, fresh.metadata.namespace)
    .filter((pod) => !pod.metadata.deletionTimestamp && (pod.metadata.ownerReferences ?? []).some((o: any) => o.uid === fresh.metadata.uid));
  const isReady = (pod: any) => (pod.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');
  const replicas: number = fresh.spec.replicas ?? 1;
  const updated = live.filter((pod) => pod.metadata.labels?.['pod-template-hash'] === hash);
  const ready = live.filter(isReady).length;
  const complete = updated.length === replicas && live.length === replicas && updated.every(isReady);
  const previous: any[] = fresh.status?.conditions ?? [];
  const condition = (type: string, status: boolean, reason: string, message: string) => {
    const value = status ? 'True' : 'False';
    const before = previous.find((c) => c.type === type);
    const now = nowTimestamp();
    const sameStatus = before?.status === value;
    const lastUpdateTime = sameStatus && before.reason === reason ? before.lastUpdateTime : now;
    return { type, status: value, lastUpdateTime, lastTransitionTime: sameStatus ? before.lastTransitionTime : now, reason, message };
  };
  // Zero counts are left out, as the real server's JSON (omitempty) leaves them out.
  const count = (field: string, n: number) => (n > 0 ? { [field]: n } : {});
  const status = {
    observedGeneration: fresh.metadata.generation,
    ...count('replicas', live.length),
    ...count('updatedReplicas', updated.length),
    ...count('readyReplicas', ready),
    ...count('availableReplicas', ready),
    ...count('unavailableReplicas', Math.max(replicas - ready, 0)),
    conditions: [
      ready >= replicas
        ? condition('Available', true, 'MinimumReplicasAvailable', 'Deployment has minimum availability.')
        : condition('Available', false, 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.'),
      complete
        ? condition('Progressing', true, 'NewReplicaSetAvailable', `ReplicaSet "${fresh.metadata.name}-${hash}" has successfully progressed.`)
        : condition('Progressing', true, 'ReplicaSetUpdated', `ReplicaSet "${fresh.metadata.name}-${hash}" is progressing.`),
    ],
  };
  if (canonicalJson(status) === canonicalJson(fresh.status)) return;
  store.update(deployments, { ...fresh, status });
}
