import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { discovery } from './discovery.ts';
import type { ObjectApi } from './object-api.ts';
import { forwardToPod } from './pod-proxy.ts';
import { RESOURCES, type ResourceType } from './resources.ts';
import { badRequest, methodNotAllowed, pathNotFound, StatusError, unauthorized } from './status.ts';
import type { ObjectStore } from './store.ts';
import { serveWatch } from './watch.ts';

/** What the kubelet offers the API: a container's logs and where the pod's processes listen. */
export interface PodAccess {
  logs(namespace: string, name: string, options: { container?: string; tailLines?: number; limitBytes?: number; previous: boolean }): string;
  /** The pod's IP (shared by its containers) while any container runs; throws a 503 Status otherwise. */
  runningAddress(namespace: string, name: string): string;
}

interface Target {
  type: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
  /** After `proxy`: the path forwarded to the pod. */
  rest: string[];
}

const MAX_BODY = 8 * 1024 * 1024;

/** One request to the fake API server: authentication, discovery, objects, watches, log, proxy. */
export function createRouter(options: { token: string; store: ObjectStore; api: ObjectApi; pods: PodAccess }) {
  const expected = Buffer.from(`Bearer ${options.token}`);
  const authenticated = (request: IncomingMessage) => {
    const given = Buffer.from(request.headers.authorization ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    try {
      if (!authenticated(request)) throw unauthorized();
      const url = new URL(request.url ?? '/', 'https://fake');
      const segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
      const method = request.method ?? 'GET';
      const document = method === 'GET' ? discovery(segments) : undefined;
      if (document) return sendJson(response, 200, document);
      const target = parseTarget(segments);
      if (!target) throw pathNotFound();
      await handle(options, target, url.searchParams, method, request, response);
    } catch (error) {
      const status = error instanceof StatusError ? error : new StatusError(500, 'InternalError', `Internal error occurred: ${(error as Error).message}`);
      if (!response.headersSent) sendJson(response, status.code, status.body());
      else response.destroy();
    }
  };
}

async function handle(
  options: { store: ObjectStore; api: ObjectApi; pods: PodAccess },
  target: Target,
  query: URLSearchParams,
  method: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const { type, namespace = '', name, subresource } = target;
  const dryRun = query.getAll('dryRun').includes('All');
  if (type.kind === 'Namespace') {
    if (method !== 'GET' || !name) throw methodNotAllowed();
    return sendJson(response, 200, { kind: 'Namespace', apiVersion: 'v1', metadata: { name }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  }
  if (subresource && !type.subresources.includes(subresource)) throw pathNotFound();
  if (subresource === 'proxy') {
    const [podName, port = '80'] = name!.split(':') as [string, string?];
    options.api.get(type, namespace, podName);
    const address = options.pods.runningAddress(namespace, podName);
    return forwardToPod(request, response, address, Number(port), `/${target.rest.join('/')}`, query);
  }
  if (subresource === 'log') {
    if (method !== 'GET') throw methodNotAllowed();
    options.api.get(type, namespace, name!);
    const text = options.pods.logs(namespace, name!, {
      container: query.get('container') ?? undefined,
      tailLines: query.has('tailLines') ? Number(query.get('tailLines')) : undefined,
      limitBytes: query.has('limitBytes') ? Number(query.get('limitBytes')) : undefined,
      previous: query.get('previous') === 'true',
    });
    response.writeHead(200, { 'Content-Type': 'text/plain' });
    response.end(text);
    return;
  }
  if (!name) {
    if (method === 'GET') {
      if (query.get('watch') === 'true' || query.get('watch') === '1') return serveWatch(options.store, type, target.namespace, query, request, response);
      return sendJson(response, 200, options.api.list(type, target.namespace, query.get('labelSelector'), query.get('fieldSelector')));
    }
    if (method === 'POST' && type.verbs.includes('create')) return sendJson(response, 201, options.api.create(type, namespace, await readJson(request), dryRun));
    throw methodNotAllowed();
  }
  switch (method) {
    case 'GET':
      return sendJson(response, 200, options.api.get(type, namespace, name));
    case 'PUT':
      if (!type.verbs.includes('update')) throw methodNotAllowed();
      return sendJson(response, 200, options.api.replace(type, namespace, name, await readJson(request), subresource, dryRun));
    case 'PATCH':
      if (!type.verbs.includes('patch')) throw methodNotAllowed();
      return sendJson(response, 200, options.api.patch(type, namespace, name, await readJson(request), request.headers['content-type'] ?? '', subresource, dryRun));
    case 'DELETE': {
      if (subresource) throw methodNotAllowed();
      const body = await readJson(request, true);
      const propagationPolicy = query.get('propagationPolicy') ?? body?.propagationPolicy;
      return sendJson(response, 200, options.api.delete(type, namespace, name, { propagationPolicy, dryRun: dryRun || (body?.dryRun ?? []).includes('All') }));
    }
    default:
      throw methodNotAllowed();
  }
}

/** `/api/v1/namespaces/{ns}/{resource}[/{name}[/{sub}[/…]]]`, `/apis/{g}/{v}/…`, `/api/v1/{resource}` (all namespaces). */
function parseTarget(segments: string[]): Target | undefined {
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 3) [group, version, rest] = ['', segments[1]!, segments.slice(2)];
  else if (segments[0] === 'apis' && segments.length >= 4) [group, version, rest] = [segments[1]!, segments[2]!, segments.slice(3)];
  else return undefined;
  const find = (resource: string | undefined) => RESOURCES.find((r) => r.group === group && r.version === version && r.resource === resource);
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const type = find(rest[2]);
    if (!type?.namespaced) return undefined;
    return { type, namespace: rest[1], name: rest[3], subresource: rest[4], rest: rest.slice(5) };
  }
  const type = find(rest[0]);
  if (!type) return undefined;
  if (type.namespaced) return rest.length === 1 ? { type, rest: [] } : undefined;
  return { type, name: rest[1], subresource: rest[2], rest: rest.slice(3) };
}

function sendJson(response: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

async function readJson(request: IncomingMessage, optional = false): Promise<any> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new StatusError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) {
    if (optional) return undefined;
    throw badRequest('the request body is empty');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(`the request body is not JSON: ${(error as Error).message}`);
  }
}
