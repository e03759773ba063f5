import type { KubernetesObject } from './render/index.ts';
import { KubernetesApiError, type KubernetesApi, type LiveObject, type ManagedKind } from './api.ts';

/** Conflicts (another writer between our read and our write) are retried this many times, then surface. */
const MAX_ATTEMPTS = 5;

/**
 * Create-or-replace: creates `object`; when it exists, replaces it with the stored
 * resourceVersion. A 409 Conflict on replace (someone wrote in between: another OCC replica, the
 * API server's own controllers) re-reads and re-applies, a bounded number of times. Everything
 * else (422 Invalid above all) surfaces as a KubernetesApiError.
 */
export async function applyObject(api: KubernetesApi, object: KubernetesObject, signal: AbortSignal): Promise<LiveObject> {
  const kind = object.kind as ManagedKind;
  const namespace = object.metadata.namespace;
  for (let attempt = 1; ; attempt++) {
    signal.throwIfAborted();
    const live = await api.read(kind, namespace, object.metadata.name);
    try {
      if (!live) return await api.create(kind, namespace, object);
      return await api.replace(kind, namespace, replacement(object, live));
    } catch (error) {
      const retry = error instanceof KubernetesApiError && error.status === 409 && attempt < MAX_ATTEMPTS;
      if (!retry) throw error;
    }
  }
}

/**
 * The desired object with what the API server owns carried over from the live one: the
 * resourceVersion (optimistic concurrency) and, for a Service, its allocated cluster IPs (a
 * replace without them is refused as a change of an immutable field).
 */
function replacement(object: KubernetesObject, live: LiveObject): KubernetesObject {
  const metadata = { ...object.metadata, resourceVersion: live.metadata.resourceVersion };
  if (object.kind !== 'Service') return { ...object, metadata };
  const liveSpec = (live.spec ?? {}) as Record<string, unknown>;
  const allocated = Object.fromEntries(['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy'].filter((key) => liveSpec[key] !== undefined).map((key) => [key, liveSpec[key]]));
  return { ...object, metadata, spec: { ...(object.spec as Record<string, unknown>), ...allocated } };
}
