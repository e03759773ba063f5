import type { TSchema } from '@sinclair/typebox';
import type { Action, ResourceKind } from '../iam.ts';

/** PUT: a singleton sub-resource saved whole (a Namespace's SSH host). */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * What a route authorizes before its use case runs.
 * - `installation`: the singleton Installation.
 * - `namespace`: the Namespace named by the `ns` path parameter.
 * - `namespace_collection` / `child_collection`: create (or list) in the Installation / in `ns`;
 *   `create` is always checked on the parent collection, never on an exact resource.
 * - `child`: the exact resource named by `idParam` inside `ns`.
 */
export type AuthorizationTarget =
  | { scope: 'installation' }
  | { scope: 'namespace_collection' }
  | { scope: 'namespace' }
  | { scope: 'child_collection' }
  | { scope: 'child'; idParam: string };

export interface RoutePermission {
  /** Any one of these actions suffices (e.g. Agent read or update). */
  actions: readonly Action[];
  resourceKind: ResourceKind;
  target: AuthorizationTarget;
  /** `filter`: a list; the collection must be in scope and items are filtered by `read` before paging. */
  mode: 'exact' | 'filter';
}

/** `installation:administer`: identity and access control, the audit log, and where a Namespace's Agents run. */
export const INSTALLATION_ADMINISTER = {
  actions: ['administer'],
  resourceKind: 'installation',
  target: { scope: 'installation' },
  mode: 'exact',
} as const satisfies RoutePermission;

export interface RouteSchemas {
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
  /** The `data` of a success envelope; absent for 204. */
  data?: TSchema;
}

export interface RouteContract {
  operationId: string;
  method: HttpMethod;
  /** Fastify-style path, e.g. /namespaces/:ns/agents/:agt */
  path: string;
  summary: string;
  tag: string;
  /**
   * `public` routes take no credential (probes, the OpenAPI document, the session exchange);
   * `api_key` routes take a bearer key or a console session cookie; `session` routes act on the
   * console session itself and take only its cookie.
   */
  auth: 'public' | 'api_key' | 'session';
  /** Every `api_key` route declares either a permission or `anyCaller`; the controller refuses one with neither. */
  permission?: RoutePermission;
  /**
   * An `api_key` GET route that any authenticated caller may read whatever its bindings, because
   * it answers only about the caller itself or the server (`/whoami`, `/version`), never about a
   * resource. Declared outright rather than by leaving `permission` out, so a route that merely
   * forgot its permission is still refused at startup.
   */
  anyCaller?: true;
  /**
   * The mutation may be asked as a dry run (`?dryRun=true`, schemas.querystring DryRunQuerySchema):
   * it runs whole and answers as it would, then its transaction is rolled back — nothing is
   * written, no audit event is kept (docs/api.md, "Dry runs").
   */
  dryRun?: true;
  /** The audit action written, in the same transaction, by a mutation. */
  audit?: string;
  /**
   * A read sent as POST (its body carries a credential): it changes nothing, so it writes no
   * audit event. Every other non-GET route declares `audit`.
   */
  readOnly?: true;
  successStatus: 200 | 201 | 202 | 204;
  /**
   * A second success answer the request selects, with its own data schema (deploy's dry run
   * answers 200 where the deploy answers 202). The handler names it by its status.
   */
  alternativeSuccess?: { status: 200; data: TSchema; description: string };
  /** The body may be absent or empty (as JSON, or with no content type): the handler then sees `{}`. */
  optionalBody?: true;
  schemas: RouteSchemas;
  /**
   * The response body is the data itself, not an envelope: the OpenAPI document, and the text of
   * an `application/x-ndjson` route (its handler sets the content type).
   */
  raw?: true;
  /**
   * The success answer is not a JSON envelope. `text/event-stream`: a Server-Sent Events stream,
   * `schemas.data` describes the JSON `data:` of one event. `application/x-ndjson` (always
   * `raw`): newline-delimited JSON, `schemas.data` describes one line (the audit export).
   * OpenAPI: the response content of that media type.
   */
  produces?: 'text/event-stream' | 'application/x-ndjson';
  /** Error statuses this route can answer, for the OpenAPI document. */
  errors: readonly number[];
}

export const READ_ERRORS = [400, 401, 403, 404, 500, 503] as const;
export const CREATE_ERRORS = [400, 401, 403, 404, 409, 413, 415, 500, 501, 503] as const;
/** Discovery adds the upstream's rate limit (429) and unsupported drivers (501). */
export const DISCOVERY_ERRORS = [400, 401, 403, 404, 409, 413, 415, 429, 500, 501, 503] as const;
export const MUTATION_ERRORS = [400, 401, 403, 404, 409, 412, 413, 415, 500, 501, 503] as const;
