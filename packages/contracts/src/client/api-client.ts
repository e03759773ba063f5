import type { Static, TSchema } from '@sinclair/typebox';
import { apiRoutes, CSRF_HEADER, type ApiRoute, type OperationId, type RouteOf } from '../routes/index.ts';
import { ApiError, ApiUnreachableError, errorFromResponse } from './api-error.ts';
import { readServerSentEvents, type ServerSentEvent } from './server-sent-events.ts';

/**
 * The typed HTTP client of the public API, built from the route table: the CLI and the console
 * use it; neither imports controller code. It does no I/O of its own — the caller passes
 * `fetch` — so this package stays free of I/O modules.
 */

type PartOf<R, K extends string> = R extends { schemas: { [P in K]: infer S extends TSchema } } ? Static<S> : undefined;

/** The path parameters of a route (`undefined` when it has none). */
export type ParamsOf<Id extends OperationId> = PartOf<RouteOf<Id>, 'params'>;
export type QueryOf<Id extends OperationId> = PartOf<RouteOf<Id>, 'querystring'>;
export type BodyOf<Id extends OperationId> = PartOf<RouteOf<Id>, 'body'>;
/** The `data` of a success answer: the route's, or its alternative success's (a dry run). */
export type DataOf<Id extends OperationId> = PartOf<RouteOf<Id>, 'data'> | (RouteOf<Id> extends { alternativeSuccess: { data: infer A extends TSchema } } ? Static<A> : never);

export type CallInput<Id extends OperationId> = (ParamsOf<Id> extends undefined ? { params?: undefined } : { params: ParamsOf<Id> }) & {
  query?: QueryOf<Id>;
  body?: BodyOf<Id>;
  /** Sent as `If-Match` (an ETag from an earlier answer). */
  ifMatch?: string;
  signal?: AbortSignal;
};

export interface CallResult<Id extends OperationId> {
  status: number;
  data: DataOf<Id>;
  etag: string | undefined;
  requestId: string | undefined;
}

export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

export interface ApiClientOptions {
  /** e.g. http://127.0.0.1:8080 (a trailing slash is ignored). */
  server: string;
  apiKey?: string;
  /**
   * A console session's CSRF token (the browser sends the session cookie itself): read on each
   * request, sent as X-CSRF-Token on every authenticated request other than GET/HEAD.
   */
  csrfToken?: () => string | undefined;
  fetch: FetchFunction;
  userAgent?: string;
}

export interface ApiClient {
  readonly server: string;
  call<Id extends OperationId>(operationId: Id, input: CallInput<Id>): Promise<CallResult<Id>>;
  /** Every page of a list route, followed through `nextCursor`, as one array of items. */
  listAll<Id extends ListOperationId>(operationId: Id, input: CallInput<Id>): Promise<ItemOf<Id>[]>;
  /**
   * A Server-Sent Events route as parsed events. The stream ends when the server ends it; the
   * caller decides whether to reconnect (with `lastEventId`).
   */
  stream<Id extends StreamOperationId>(operationId: Id, input: CallInput<Id> & { lastEventId?: string }): AsyncGenerator<ServerSentEvent<DataOf<Id>>>;
}

/** Routes whose data is a page: `{ items, nextCursor }`. */
export type ListOperationId = { [Id in OperationId]: DataOf<Id> extends { items: unknown[]; nextCursor: string | null } ? Id : never }[OperationId];
export type ItemOf<Id extends ListOperationId> = DataOf<Id> extends { items: (infer T)[] } ? T : never;
export type StreamOperationId = Extract<ApiRoute, { produces: 'text/event-stream' }>['operationId'];

const routesById = new Map<string, ApiRoute>(apiRoutes.map((route) => [route.operationId, route]));

/** The request path of a route with its parameters filled in (each one URL-encoded). */
export function routePath(path: string, params: Record<string, string> | undefined): string {
  return path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new TypeError(`Missing path parameter ${name} for ${path}`);
    return encodeURIComponent(value);
  });
}

function queryString(query: Record<string, unknown> | undefined): string {
  const entries = Object.entries(query ?? {}).filter(([, value]) => value !== undefined && value !== null);
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries.map(([key, value]): [string, string] => [key, String(value)])).toString()}`;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const server = options.server.replace(/\/+$/, '');

  async function send(operationId: OperationId, input: CallInput<OperationId> & { lastEventId?: string }, accept: string): Promise<Response> {
    const route = routesById.get(operationId);
    if (!route) throw new TypeError(`Unknown operation ${operationId}`);
    const url = `${server}${routePath(route.path, input.params as Record<string, string> | undefined)}${queryString(input.query as Record<string, unknown> | undefined)}`;
    const headers: Record<string, string> = { accept };
    if (options.apiKey && route.auth === 'api_key') headers.authorization = `Bearer ${options.apiKey}`;
    const csrfToken = route.auth !== 'public' && route.method !== 'GET' ? options.csrfToken?.() : undefined;
    if (csrfToken) headers[CSRF_HEADER] = csrfToken;
    if (options.userAgent) headers['user-agent'] = options.userAgent;
    if (input.ifMatch) headers['if-match'] = input.ifMatch;
    if (input.lastEventId) headers['last-event-id'] = input.lastEventId;
    let body: string | undefined;
    if (input.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(input.body);
    }
    try {
      return await options.fetch(url, { method: route.method, headers, ...(body === undefined ? {} : { body }), ...(input.signal ? { signal: input.signal } : {}) });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new ApiUnreachableError(server, error);
    }
  }

  async function call<Id extends OperationId>(operationId: Id, input: CallInput<Id>): Promise<CallResult<Id>> {
    const response = await send(operationId, input as CallInput<OperationId>, 'application/json');
    if (!response.ok) throw await errorFromResponse(response);
    const requestId = response.headers.get('x-request-id') ?? undefined;
    const etag = response.headers.get('etag') ?? undefined;
    if (response.status === 204) return { status: 204, data: undefined as DataOf<Id>, etag, requestId };
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ApiError(response.status, 'INVALID_RESPONSE', 'The server answered with something that is not JSON.', [], requestId);
    }
    const route = routesById.get(operationId)!;
    const data = 'raw' in route && route.raw ? parsed : (parsed as { data?: unknown }).data;
    return { status: response.status, data: data as DataOf<Id>, etag, requestId: requestId ?? (parsed as { meta?: { requestId?: string } }).meta?.requestId };
  }

  return {
    server,
    call,
    async listAll(operationId, input) {
      const items: unknown[] = [];
      let cursor: string | undefined;
      do {
        const query = { ...(input.query as object | undefined), ...(cursor ? { cursor } : {}) };
        const page = (await call(operationId, { ...input, query } as CallInput<typeof operationId>)).data as { items: unknown[]; nextCursor: string | null };
        items.push(...page.items);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return items as never;
    },
    async *stream(operationId, input) {
      const response = await send(operationId, input as CallInput<OperationId>, 'text/event-stream');
      if (!response.ok) throw await errorFromResponse(response);
      if (!response.body) return;
      for await (const event of readServerSentEvents(response.body)) yield event as never;
    },
  };
}
