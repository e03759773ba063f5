import type { ResourceType } from './resources.ts';
import { nowTimestamp, type ObjectStore, type RecordedEvent } from './store.ts';

/**
 * Deletes one object. With a kubelet a Pod is deleted gracefully, as the real server does: it gets
 * a deletionTimestamp and stays until the kubelet has stopped its process and removes it.
 */
export function deleteObject(store: ObjectStore, type: ResourceType, namespace: string, name: string, actor: RecordedEvent['actor'], gracefulPods: boolean): any | undefined {
  const current = store.get(type, namespace, name);
  if (!current) return undefined;
  if (type.kind === 'Pod' && gracefulPods) {
    if (current.metadata.deletionTimestamp) return current;
    current.metadata.deletionTimestamp = nowTimestamp();
    current.metadata.deletionGracePeriodSeconds = current.spec?.terminationGracePeriodSeconds ?? 30;
    return store.update(type, current, { verb: 'delete', actor });
  }
  return store.remove(type, namespace, name, { verb: 'delete', actor });
}

/**
 * Background garbage collection by ownerReferences: when an object goes, every object none of
 * whose owners still exists is deleted too (and so on down the chain).
 */
export function startGarbageCollector(store: ObjectStore, gracefulPods: boolean): () => void {
  let stopped = false;
  const unsubscribe = store.subscribe((change) => {
    if (change.type !== 'DELETED') return;
    const uid: string = change.object.metadata.uid;
    setImmediate(() => {
      if (stopped) return;
      const all = store.all();
      const existing = new Set(all.map(({ object }) => object.metadata.uid as string));
      for (const { type, object } of all) {
        const owners: Array<{ uid: string }> = object.metadata.ownerReferences ?? [];
        if (!owners.some((o) => o.uid === uid)) continue;
        if (owners.every((o) => !existing.has(o.uid))) deleteObject(store, type, object.metadata.namespace, object.metadata.name, 'garbage-collector', gracefulPods);
      }
    });
  });
  return () => {
    stopped = true;
    unsubscribe();
  };
}

/** propagationPolicy=Orphan: the dependents lose their reference to the owner and stay. */
export function orphanDependents(store: ObjectStore, ownerUid: string): void {
  for (const { type, object } of store.all()) {
    const owners: Array<{ uid: string }> = object.metadata.ownerReferences ?? [];
    if (!owners.some((o) => o.uid === ownerUid)) continue;
    object.metadata.ownerReferences = owners.filter((o) => o.uid !== ownerUid);
    if (!object.metadata.ownerReferences.length) delete object.metadata.ownerReferences;
    store.update(type, object);
  }
}
