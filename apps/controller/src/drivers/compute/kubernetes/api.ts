import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiException, AppsV1Api, CoreV1Api, type KubeConfig, NetworkingV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';

/**
 * A thin wrapper over `@kubernetes/client-node`: the few kinds and verbs the driver uses, by kind
 * name, with objects as plain JSON. Errors become KubernetesApiError carrying the HTTP code, the
 * Status reason and the fields a 422 names — never the API server's message, which may quote an
 * object's content (a Secret's).
 */

/** The kinds the driver writes or reads (each with its typed client below). */
export type ManagedKind = 'ServiceAccount' | 'ConfigMap' | 'Secret' | 'Service' | 'NetworkPolicy' | 'Deployment' | 'Pod';

/** An object as the API server returns it (only what the driver reads is typed). */
export interface LiveObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string }[];
    deletionTimestamp?: string | Date;
    creationTimestamp?: string | Date;
  };
  [field: string]: unknown;
}

export class KubernetesApiError extends Error {
  override readonly name = 'KubernetesApiError';
  constructor(
    /** The HTTP status (0: no answer). */
    readonly status: number,
    /** The Status reason (NotFound, AlreadyExists, Conflict, Invalid, …) or null. */
    readonly reason: string | null,
    readonly kind: string,
    readonly objectName: string,
    /** The fields a 422 names (causes[].field), never their values. */
    readonly fields: string[] = [],
  ) {
    super(`Kubernetes API: ${verbOf(status, reason)} ${kind} ${objectName}${fields.length > 0 ? ` (${fields.join(', ')})` : ''}`);
  }
}

const verbOf = (status: number, reason: string | null) => (status === 0 ? 'no answer for' : `${status} ${reason ?? 'error'} for`);

type Verb = 'read' | 'create' | 'replace' | 'delete' | 'patch' | 'list';
type Call = (param: Record<string, unknown>, options?: unknown) => Promise<unknown>;

/** The typed client's method names per kind (`<verb>Namespaced<Kind>`). */
const CLIENT_OF: Record<ManagedKind, 'core' | 'apps' | 'networking'> = {
  ServiceAccount: 'core',
  ConfigMap: 'core',
  Secret: 'core',
  Service: 'core',
  Pod: 'core',
  NetworkPolicy: 'networking',
  Deployment: 'apps',
};

const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export class KubernetesApi {
  private readonly clients: Record<'core' | 'apps' | 'networking', unknown>;

  constructor(private readonly kc: KubeConfig) {
    this.clients = { core: kc.makeApiClient(CoreV1Api), apps: kc.makeApiClient(AppsV1Api), networking: kc.makeApiClient(NetworkingV1Api) };
  }

  /** The object, or null when it does not exist. */
  async read(kind: ManagedKind, namespace: string, name: string): Promise<LiveObject | null> {
    try {
      return (await this.call(kind, 'read', name, { name, namespace })) as LiveObject;
    } catch (error) {
      if (error instanceof KubernetesApiError && error.status === 404) return null;
      throw error;
    }
  }

  async create(kind: ManagedKind, namespace: string, body: object): Promise<LiveObject> {
    return (await this.call(kind, 'create', nameOf(body), { namespace, body })) as LiveObject;
  }

  /** PUT: `body.metadata.resourceVersion` must be the stored one (else 409 Conflict). */
  async replace(kind: ManagedKind, namespace: string, body: object): Promise<LiveObject> {
    const name = nameOf(body);
    return (await this.call(kind, 'replace', name, { name, namespace, body })) as LiveObject;
  }

  /** application/merge-patch+json. */
  async mergePatch(kind: ManagedKind, namespace: string, name: string, patch: object): Promise<LiveObject> {
    return (await this.call(kind, 'patch', name, { name, namespace, body: patch }, MERGE_PATCH)) as LiveObject;
  }

  /** Deletes (background propagation: the garbage collector removes dependents); absent is fine. */
  async delete(kind: ManagedKind, namespace: string, name: string): Promise<void> {
    try {
      await this.call(kind, 'delete', name, { name, namespace, propagationPolicy: 'Background' });
    } catch (error) {
      if (error instanceof KubernetesApiError && error.status === 404) return;
      throw error;
    }
  }

  async list(kind: ManagedKind, namespace: string, labelSelector: string): Promise<LiveObject[]> {
    const list = (await this.call(kind, 'list', labelSelector, { namespace, labelSelector })) as { items?: LiveObject[] };
    return list.items ?? [];
  }

  /** The current container start's log (text), at most `limitBytes` from its start, or its last `tailLines`. */
  async podLog(namespace: string, name: string, options: { container: string; tailLines?: number; limitBytes?: number }): Promise<string> {
    return (await this.call('Pod', 'read', name, { name, namespace, ...options }, undefined, 'readNamespacedPodLog')) as string;
  }

  /**
   * GET through the API server's pod proxy (`pods/{pod}:{port}/proxy/{path}`), with `headers`
   * added to the API server's own credential (which the API server strips before the pod). At most
   * `maxBytes` of the answer are read; more is `null` body.
   */
  async podProxyGet(
    namespace: string,
    pod: string,
    port: number,
    path: string,
    headers: Record<string, string>,
    options: { signal: AbortSignal; timeoutMs: number; maxBytes: number },
  ): Promise<{ status: number; body: string | null; headers: IncomingHttpHeaders } | 'unreachable'> {
    const cluster = this.kc.getCurrentCluster();
    if (!cluster) return 'unreachable';
    const url = new URL(
      `${cluster.server.replace(/\/+$/, '')}/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(`${pod}:${port}`)}/proxy/${path.replace(/^\/+/, '')}`,
    );
    const opts: RequestOptions = { method: 'GET', headers: {} };
    await this.kc.applyToHTTPSOptions(opts);
    opts.headers = { ...(opts.headers as Record<string, string>), ...headers };
    const signal = AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]);
    return new Promise((resolve) => {
      const req = httpsRequest(url, { ...opts, signal }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            res.destroy();
            resolve({ status: res.statusCode ?? 0, body: null, headers: res.headers });
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
        res.on('error', () => resolve('unreachable'));
      });
      req.on('error', () => resolve('unreachable'));
      req.end();
    });
  }

  private async call(kind: ManagedKind, verb: Verb, name: string, param: Record<string, unknown>, options?: unknown, method = `${verb}Namespaced${kind}`): Promise<unknown> {
    const client = this.clients[CLIENT_OF[kind]] as Record<string, Call>;
    try {
      return await client[method]!.call(client, param, options);
    } catch (error) {
      throw apiError(error, kind, name);
    }
  }
}

const nameOf = (body: object) => (body as { metadata?: { name?: string } }).metadata?.name ?? '';

/** The API server's Status, read for its code, reason and causes' field names only. */
function apiError(error: unknown, kind: string, name: string): KubernetesApiError {
  if (!(error instanceof ApiException)) return new KubernetesApiError(0, null, kind, name);
  let status: { reason?: unknown; details?: { causes?: { field?: unknown }[] } } = {};
  try {
    status = typeof error.body === 'string' ? JSON.parse(error.body) : ((error.body ?? {}) as typeof status);
  } catch {
    // Not a Status (a proxy's HTML page): the code alone says enough.
  }
  const fields = (status.details?.causes ?? []).map((cause) => cause.field).filter((field): field is string => typeof field === 'string' && field.length <= 200);
  return new KubernetesApiError(error.code, typeof status.reason === 'string' ? status.reason : null, kind, name, [...new Set(fields)]);
}
