import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyRequest, RawServerDefault, RouteGenericInterface } from 'fastify';
import type { OperationId, RouteContract, RouteOf } from '@occ/contracts';
import type { ControllerDeps } from '../../core/deps.ts';
import type { Caller } from '../../core/iam/access.ts';
import type { ConsoleSession } from '../../core/use-cases/console-sessions.ts';
import type { RequestSchemaOf } from '../route-schema.ts';

/** The request Fastify hands a route's handler: its parts typed by the TypeBox type provider from the route's schemas. */
export type RouteRequest<R extends RouteContract> = FastifyRequest<RouteGenericInterface, RawServerDefault, IncomingMessage, RequestSchemaOf<R>, TypeBoxTypeProvider>;

/** What a handler sees: the request already authenticated, validated and authorized. */
export interface HandlerContext<R extends RouteContract> {
  deps: ControllerDeps;
  /** Present on every route that takes an API key. */
  caller: Caller;
  params: RouteRequest<R>['params'];
  query: RouteRequest<R>['query'];
  body: RouteRequest<R>['body'];
  headers: IncomingHttpHeaders;
  /** The console session of a cookie-authenticated request; null with an API key or on public routes. */
  session: ConsoleSession | null;
  /** The request came over TLS (cookies then carry `Secure`). Proxies' headers are not trusted. */
  secure: boolean;
  requestId: string;
  /** This API's OpenAPI document. */
  openapi: () => unknown;
  /** Aborted when the client goes away before the answer is sent (provider I/O stops with it). */
  signal: AbortSignal;
}

/**
 * The `data` a route answers with: its data schema's type; nothing for a route that declares
 * none (204); an NDJSON route answers its text (and sets its content type); a raw route (the
 * OpenAPI document) answers a document no schema describes; an event-stream route answers its
 * frames.
 */
export type ResponseData<R extends RouteContract> = R extends { produces: 'application/x-ndjson' }
  ? string
  : R extends { raw: true }
    ? unknown
    : R extends { produces: 'text/event-stream' }
      ? EventStream
      : (R['schemas']['data'] extends TSchema ? Static<R['schemas']['data']> : undefined) | AlternativeData<R>;

/** The data of a route's alternative success answer (deploy's dry run); never for other routes. */
type AlternativeData<R extends RouteContract> = R extends { alternativeSuccess: { data: infer A extends TSchema } } ? Static<A> : never;

/** The frames of a Server-Sent Events answer, each already encoded (`id:`/`event:`/`data:` lines or a `:` comment). */
export type EventStream = AsyncIterable<string>;

export interface HandlerResult<Data> {
  data: Data;
  headers?: Record<string, string>;
  /** The route's `alternativeSuccess.status` when the answer is that one; absent: `successStatus`. */
  status?: 200;
}

export type Handler<R extends RouteContract> = (ctx: HandlerContext<R>) => Promise<HandlerResult<ResponseData<R>>>;

/** operationId → the handler of that route, typed from it. */
export type HandlerMap = { [Id in OperationId]: Handler<RouteOf<Id>> };

export const ok = <Data>(data: Data): HandlerResult<Data> => ({ data });
export const none = (): HandlerResult<undefined> => ({ data: undefined });
