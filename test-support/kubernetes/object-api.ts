import { canonicalJson } from './canonical-json.ts';
import { applyDefaults } from './defaults.ts';
import { deleteObject, orphanDependents } from './deletion.ts';
import { applyPatch, JsonPatchTestFailed } from './patch.ts';
import { apiVersionOf, type ResourceType } from './resources.ts';
import { parseFieldSelector, parseLabelSelector } from './selectors.ts';
import { alreadyExists, badRequest, conflict, invalid, notFound } from './status.ts';
import type { ObjectStore } from './store.ts';
import { validateObject } from './validation.ts';

const CLIENT = { actor: 'client' } as const;

/**
 * The verbs on stored objects, as the real API server applies them: defaults, validation (422),
 * AlreadyExists and Conflict (409), status kept apart from spec, Secret stringData folded into
 * data. HTTP-free: the router turns requests into these calls.
 */
export class ObjectApi {
  constructor(
    private readonly store: ObjectStore,
    private readonly gracefulPods: boolean,
  ) {}

  get(type: ResourceType, namespace: string, name: string): any {
    const found = this.store.get(type, namespace, name);
    if (!found) throw notFound(type, name);
    return found;
  }

  list(type: ResourceType, namespace: string | undefined, labelSelector: string | null, fieldSelector: string | null): any {
    const labels = parseLabelSelector(labelSelector);
    const fields = parseFieldSelector(fieldSelector);
    // The real server leaves kind and apiVersion off a list's items.
    const items = this.store
      .list(type, namespace)
      .filter((o) => labels(o.metadata.labels) && fields(o))
      .map(({ kind: _k, apiVersion: _a, ...rest }) => rest);
    return { kind: `${type.kind}List`, apiVersion: apiVersionOf(type), metadata: { resourceVersion: this.store.resourceVersion }, items };
  }

  create(type: ResourceType, namespace: string, body: any, dryRun: boolean): any {
    const object = this.prepareBody(type, namespace, body);
    if (!object.metadata.name && object.metadata.generateName) object.metadata.name = `${object.metadata.generateName}${randomSuffix()}`;
    if (this.store.get(type, namespace, object.metadata.name ?? '')) throw alreadyExists(type, object.metadata.name);
    for (const field of ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'deletionTimestamp']) delete object.metadata[field];
    if (type.kind === 'Deployment') delete object.status;
    applyDefaults(type.kind, object);
    validateObject(type, object);
    if (dryRun) return { ...object, apiVersion: apiVersionOf(type), kind: type.kind };
    return this.store.create(type, object, { verb: 'create', ...CLIENT });
  }

  replace(type: ResourceType, namespace: string, name: string, body: any, subresource: string | undefined, dryRun: boolean): any {
    const current = this.get(type, namespace, name);
    const object = this.prepareBody(type, namespace, body);
    if (object.metadata.name !== name) throw badRequest(`the name of the object (${object.metadata.name}) does not match the name on the URL (${name})`);
    // An update without resourceVersion is unconditional (as the real server allows for these kinds).
    if (object.metadata.resourceVersion && object.metadata.resourceVersion !== current.metadata.resourceVersion) throw conflict(type, name);
    return this.write(type, current, object, subresource, 'update', dryRun);
  }

  patch(type: ResourceType, namespace: string, name: string, patch: unknown, contentType: string, subresource: string | undefined, dryRun: boolean): any {
    const current = this.get(type, namespace, name);
    let patched: any;
    try {
      patched = applyPatch(current, patch, contentType);
    } catch (error) {
      if (error instanceof JsonPatchTestFailed) throw invalid(type, name, [{ reason: 'FieldValueInvalid', message: error.message, field: error.path }]);
      throw error;
    }
    if (!patched || typeof patched !== 'object' || Array.isArray(patched)) throw badRequest('the patch made the object something other than an object');
    const object = this.prepareBody(type, namespace, patched);
    if (object.metadata.name !== name) throw badRequest(`the name of the object (${object.metadata.name}) does not match the name on the URL (${name})`);
    if (object.metadata.resourceVersion !== current.metadata.resourceVersion) throw conflict(type, name);
    return this.write(type, current, object, subresource, 'patch', dryRun);
  }

  delete(type: ResourceType, namespace: string, name: string, options: { propagationPolicy?: string; dryRun: boolean }): any {
    const current = this.get(type, namespace, name);
    if (options.dryRun) return current;
    if (options.propagationPolicy === 'Orphan') orphanDependents(this.store, current.metadata.uid);
    return deleteObject(this.store, type, namespace, name, 'client', this.gracefulPods) ?? current;
  }

  private write(type: ResourceType, current: any, object: any, subresource: string | undefined, verb: 'update' | 'patch', dryRun: boolean): any {
    // The main resource ignores status; /status changes status only (as for the real Deployment).
    if (type.subresources.includes('status')) {
      if (subresource === 'status') object.spec = current.spec;
      else object.status = current.status;
    }
    if (type.kind === 'Service' && current.spec?.clusterIP && object.spec && object.spec.clusterIP === undefined) {
      object.spec.clusterIP = current.spec.clusterIP;
      object.spec.clusterIPs ??= current.spec.clusterIPs;
    }
    // Deletion is decided by the server, never by a write.
    if (current.metadata.deletionTimestamp) object.metadata.deletionTimestamp = current.metadata.deletionTimestamp;
    else delete object.metadata.deletionTimestamp;
    applyDefaults(type.kind, object);
    validateObject(type, object, current);
    if (dryRun) return object;
    if (canonicalJson(stripServerFields(object)) === canonicalJson(stripServerFields(current))) return current;
    return this.store.update(type, object, { verb, ...CLIENT });
  }

  /** The body as the server keeps it: namespace from the URL, Secret stringData folded into data. */
  private prepareBody(type: ResourceType, namespace: string, body: any): any {
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the request body must be a JSON object');
    const object = structuredClone(body);
    object.metadata = { ...(object.metadata ?? {}) };
    if (object.kind !== undefined && object.kind !== type.kind) throw badRequest(`the kind of the body (${object.kind}) does not match ${type.kind}`);
    if (type.namespaced) {
      if (object.metadata.namespace !== undefined && object.metadata.namespace !== namespace)
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      object.metadata.namespace = namespace;
    }
    if (type.kind === 'Secret' && object.stringData) {
      object.data = { ...(object.data ?? {}) };
      for (const [key, value] of Object.entries<string>(object.stringData)) object.data[key] = Buffer.from(String(value), 'utf8').toString('base64');
      delete object.stringData;
    }
    return object;
  }
}

const stripServerFields = (object: any) => ({
  ...object,
  apiVersion: undefined,
  kind: undefined,
  metadata: { ...object.metadata, resourceVersion: undefined, managedFields: undefined },
});

const randomSuffix = () => Array.from({ length: 5 }, () => 'bcdfghjklmnpqrstvwxz2456789'[Math.floor(Math.random() * 27)]).join('');
