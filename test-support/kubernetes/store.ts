import { randomUUID } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';
import { apiVersionOf, type ResourceType } from './resources.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One stored change; `object` carries kind and apiVersion as a watch event does. */
export interface Change {
  type: WatchEventType;
  resource: ResourceType;
  object: any;
  /** For MODIFIED: the object before the change (a selector watch needs both). */
  previous?: any;
  resourceVersion: number;
}

/** Who changed what, in order: requests from clients and the objects the fake's controllers made. */
export interface RecordedEvent {
  verb: 'create' | 'update' | 'patch' | 'delete';
  kind: string;
  namespace: string;
  name: string;
  actor: 'client' | 'deployment-controller' | 'garbage-collector' | 'kubelet';
}

const HISTORY = 1000; // changes kept for watches that resume from a resourceVersion

export const nowTimestamp = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

/**
 * Every object of the fake, keyed by resource, namespace and name. It owns the server-set
 * metadata (uid, the one global resourceVersion counter, creationTimestamp, a Deployment's
 * generation) and tells listeners of each change, in order; it knows no HTTP and no validation.
 */
export class ObjectStore {
  private readonly objects = new Map<string, { type: ResourceType; object: any }>();
  private readonly history: Change[] = [];
  private readonly listeners = new Set<(change: Change) => void>();
  private counter = 1;
  readonly events: RecordedEvent[] = [];

  get resourceVersion(): string {
    return String(this.counter);
  }

  get(type: ResourceType, namespace: string, name: string): any | undefined {
    const found = this.objects.get(key(type, namespace, name));
    return found === undefined ? undefined : structuredClone(found.object);
  }

  list(type: ResourceType, namespace?: string): any[] {
    const prefix = `${type.group}/${type.resource}/`;
    const items: any[] = [];
    for (const [k, { object }] of this.objects) {
      if (k.startsWith(prefix) && (namespace === undefined || object.metadata.namespace === namespace)) items.push(structuredClone(object));
    }
    return items.sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion));
  }

  /** Every object of any kind (for the garbage collector). */
  all(): Array<{ type: ResourceType; object: any }> {
    return [...this.objects.values()].map(({ type, object }) => ({ type, object: structuredClone(object) }));
  }

  create(type: ResourceType, object: any, record?: Omit<RecordedEvent, 'kind' | 'namespace' | 'name'>): any {
    const stored = structuredClone(object);
    stored.apiVersion = apiVersionOf(type);
    stored.kind = type.kind;
    stored.metadata = { ...stored.metadata, uid: randomUUID(), creationTimestamp: nowTimestamp() };
    if (type.kind === 'Deployment') stored.metadata.generation = 1;
    return this.write(type, stored, 'ADDED', record);
  }

  /** Stores a new version; an update that changes nothing keeps its resourceVersion and tells no one. */
  update(type: ResourceType, object: any, record?: Omit<RecordedEvent, 'kind' | 'namespace' | 'name'>): any {
    const current = this.objects.get(key(type, object.metadata.namespace, object.metadata.name))?.object;
    if (!current) throw new Error(`update of a missing ${type.kind} ${object.metadata.name}`);
    const next = structuredClone(object);
    next.apiVersion = apiVersionOf(type);
    next.kind = type.kind;
    next.metadata = { ...next.metadata, uid: current.metadata.uid, creationTimestamp: current.metadata.creationTimestamp, resourceVersion: current.metadata.resourceVersion };
    if (current.metadata.generation !== undefined) {
      const specChanged = canonicalJson(current.spec) !== canonicalJson(next.spec);
      next.metadata.generation = current.metadata.generation + (specChanged ? 1 : 0);
    }
    if (canonicalJson(current) === canonicalJson(next)) return structuredClone(current);
    return this.write(type, next, 'MODIFIED', record, current);
  }

  remove(type: ResourceType, namespace: string, name: string, record?: Omit<RecordedEvent, 'kind' | 'namespace' | 'name'>): any | undefined {
    const k = key(type, namespace, name);
    const current = this.objects.get(k)?.object;
    if (!current) return undefined;
    this.objects.delete(k);
    const bare = structuredClone(current);
    // A deletion is a change too: the object's last state carries a new resourceVersion.
    bare.metadata = { ...bare.metadata, resourceVersion: String(++this.counter) };
    if (record) this.events.push({ ...record, kind: type.kind, namespace, name });
    this.tell({ type: 'DELETED', resource: type, object: bare, resourceVersion: this.counter });
    return structuredClone(bare);
  }

  subscribe(listener: (change: Change) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The changes after `resourceVersion`, or `undefined` when they are no longer kept (410 Gone). */
  changesSince(resourceVersion: number): Change[] | undefined {
    const oldest = this.history[0]?.resourceVersion ?? this.counter + 1;
    if (resourceVersion < oldest - 1 && resourceVersion < this.counter) return undefined;
    return this.history.filter((c) => c.resourceVersion > resourceVersion).map((c) => ({ ...c, object: structuredClone(c.object) }));
  }

  private write(type: ResourceType, object: any, change: WatchEventType, record?: Omit<RecordedEvent, 'kind' | 'namespace' | 'name'>, previous?: any): any {
    object.metadata.resourceVersion = String(++this.counter);
    this.objects.set(key(type, object.metadata.namespace, object.metadata.name), { type, object: structuredClone(object) });
    if (record) this.events.push({ ...record, kind: type.kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name });
    this.tell({ type: change, resource: type, object: structuredClone(object), ...(previous ? { previous: structuredClone(previous) } : {}), resourceVersion: this.counter });
    return structuredClone(object);
  }

  private tell(change: Change): void {
    this.history.push(change);
    if (this.history.length > HISTORY) this.history.shift();
    for (const listener of [...this.listeners]) {
      try {
        listener({ ...change, object: structuredClone(change.object), previous: change.previous && structuredClone(change.previous) });
      } catch (error) {
        // A listener's failure must not stop the others (a watch connection may have just closed).
        console.error('fake API server listener failed', error);
      }
    }
  }
}

const key = (type: ResourceType, namespace: string | undefined, name: string) => `${type.group}/${type.resource}/${namespace ?? ''}/${name}`;
