import { Readable } from 'node:stream';
import Fastify, { type ContextConfigDefault, type FastifyInstance, type FastifyReply, type FastifyServerOptions, type RouteGenericInterface } from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import { OCC_VERSION, routeTable, type OperationId, type RouteContract, type RouteOf } from '@occ/contracts';
import type { ControllerDeps } from '../core/deps.ts';
import { dryRunState } from '../core/dry-run.ts';
import type { Caller } from '../core/iam/access.ts';
import { authorizeRoute } from '../core/iam/route-authorization.ts';
import { newId } from '../core/ids.ts';
import type { ConsoleSession } from '../core/use-cases/console-sessions.ts';
import { loadConsoleAssets, registerConsole } from './console-assets.ts';
import { toErrorBody } from './error-mapping.ts';
import { handlers as defaultHandlers } from './handlers/index.ts';
import type { EventStream, HandlerMap } from './handlers/handler.ts';
import { markOptionalBodies } from './openapi-optional-bodies.ts';
import { authenticateRequest } from './request-authentication.ts';
import { registerBrowserSignIn } from './sign-in-browser.ts';
import { fastifyRouteSchema, type RequestSchemaOf } from './route-schema.ts';
import { isOperationId, isPathParams, routeOf } from './route-binding.ts';
import { compileValidator, httpPartOf } from './validation.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
    /** The console session of a cookie-authenticated request (never its token). */
    consoleSession: ConsoleSession | null;
  }
}

export interface AppOptions {
  deps: ControllerDeps;
  logger?: FastifyServerOptions['logger'];
  /** Largest accepted request body in bytes (default 1 MiB); larger → 413. */
  bodyLimit?: number;
  routes?: readonly RouteContract[];
  /** Handlers by operationId (a route without one is refused at startup). */
  handlers?: Partial<HandlerMap>;
  /**
   * The built web console (index.html and assets/), served at `/` and `/assets/*` (read once,
   * here). Without index.html `/` answers 503 "not built". Absent or null: no console routes.
   */
  consoleDirectory?: string | null;
  /** Told every route Fastify registers, before the first one: what the app really serves (the route inventory checks it against the route table). */
  onRoute?: (route: { method: string; url: string }) => void;
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** The `route` label of a request no route matched. */
const UNMATCHED_ROUTE = 'unmatched';

/** Request log lines carry the method and path only: query strings (cursors) and headers stay out. */
function withSafeSerializers(logger: AppOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger) return false;
  const base = typeof logger === 'object' ? logger : {};
  return {
    ...base,
    serializers: {
      req: (req: { method: string; url: string; id: string }) => ({ method: req.method, path: req.url.split('?')[0], requestId: req.id }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  };
}

/** A signal that aborts when the connection closes before the response was sent. */
function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * A Server-Sent Events answer: the frames as they come, never buffered by a proxy. When the
 * client goes away Fastify destroys the stream, and the handler's signal ends the iterator.
 */
function sendEventStream(reply: FastifyReply, frames: EventStream): FastifyReply {
  reply.header('content-type', 'text/event-stream; charset=utf-8').header('x-accel-buffering', 'no');
  return reply.send(Readable.from(frames, { objectMode: false }));
}

/**
 * The HTTP API: every route is generated from the route table. Per request: authenticate →
 * validate (schema) → authorize (the route's declared permission) → the use case.
 */
export async function createFastifyApp(options: AppOptions): Promise<FastifyInstance> {
  const { deps } = options;
  const { metrics } = deps;
  const routes = options.routes ?? routeTable;
  const handlers = options.handlers ?? defaultHandlers;
  const app = Fastify({
    logger: withSafeSerializers(options.logger),
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    genReqId: () => newId('request'),
    requestIdHeader: false,
    return503OnClosing: true,
    // Longer than any id, so an overlong id reaches the schema and answers 404, not 414.
    routerOptions: { maxParamLength: 512 },
    // A URL the router cannot even decode is a missing resource, answered in our envelope.
    frameworkErrors: (error, request, reply: FastifyReply) => {
      const body = toErrorBody(error);
      const notFound = body.status === 400;
      void reply
        .code(notFound ? 404 : body.status)
        .headers({ 'x-request-id': request.id, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' })
        .send({ error: { code: notFound ? 'NOT_FOUND' : body.code, message: notFound ? 'Resource not found.' : body.message }, meta: { requestId: request.id } });
      // Answered before routing, so no onResponse hook runs: counted here.
      metrics?.httpRequest({ method: request.method, route: UNMATCHED_ROUTE, status: reply.statusCode, seconds: reply.elapsedTime / 1000 });
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  const observe = options.onRoute;
  if (observe)
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) observe({ method, url: route.url });
    });
  app.decorateRequest('caller', null);
  app.decorateRequest('consoleSession', null);
  // JSON only: any other media type is refused with 415 rather than half-parsed.
  app.removeContentTypeParser(['text/plain']);
  // Clients that always send `content-type: application/json` (a shell helper, an SDK) send it
  // with no body to a route that takes none (deploy, stop): that is no body, not a malformed one.
  // A route that takes a body still answers an empty one with 400. Parsing stays Fastify's own
  // (prototype-poisoning checks included).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // Routes whose body is optional (deploy) take an empty one as none, too.
  const optionalBody = new Set(routes.filter((r) => r.optionalBody).map((r) => `${r.method} ${r.path}`));
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && (request.routeOptions.schema?.body === undefined || optionalBody.has(`${request.method} ${request.routeOptions.url}`))) return done(null, undefined);
    // biome-ignore lint/nursery/noFloatingPromises: the default JSON parser is the callback kind (it calls done); its type is a union with the async kind
    parseJson(request, body.toString(), done);
  });
  // Every schema comes from the route table (TypeBox); our compiler turns failures into JSON-pointer details.
  app.setValidatorCompiler<TSchema>(({ schema, httpPart }) => compileValidator(schema, httpPartOf(httpPart)));

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'OCC — OpenClaw Enterprise control plane', version: OCC_VERSION },
      // Relative: the API is wherever this document was fetched from (OpenAPI 3.0 §4.7.5).
      servers: [{ url: '/', description: 'The controller serving this document.' }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An OCC API key (occ_…), or a CLI single sign-on session token (occs_…, occ login --sso).' },
          cookieAuth: {
            type: 'apiKey',
            in: 'cookie',
            name: 'occ_session',
            description: 'A console session (POST /sessions). Requests other than GET/HEAD also carry X-CSRF-Token.',
          },
        },
      },
    },
    // A public route (probes, this document) says outright that it takes no credential: an
    // operation without `security` would leave a client to guess.
    transform: ({ schema, url }) => ({ schema: schema && !schema.security ? { ...schema, security: [] } : schema, url }),
    transformObject: (documents) => markOptionalBodies('openapiObject' in documents ? documents.openapiObject : documents.swaggerObject, routes),
  });

  // Synchronous hooks (done-callback style): no promise per request where nothing is awaited.
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers({ 'x-request-id': request.id, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    done();
  });
  // Every answer counted and timed by its route's template, never its URL (ids and queries stay out
  // of every label): a request no route matched is `unmatched` (docs/observability.md).
  if (metrics)
    app.addHook('onResponse', (request, reply, done) => {
      metrics.httpRequest({ method: request.method, route: request.routeOptions.url ?? UNMATCHED_ROUTE, status: reply.statusCode, seconds: reply.elapsedTime / 1000 });
      done();
    });

  app.setErrorHandler((error, request, reply) => {
    const body = toErrorBody(error);
    if (body.status >= 500) request.log.error({ errorName: (error as Error).name, errorCode: (error as { code?: unknown }).code }, 'request failed');
    void reply.status(body.status).send({
      error: { code: body.code, message: body.message, ...(body.details ? { details: body.details } : {}) },
      meta: { requestId: request.id },
    });
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({ error: { code: 'NOT_FOUND', message: 'No such route.' }, meta: { requestId: request.id } });
  });

  /** One route of the table: Fastify types its request from the route's schemas, and so does its handler. */
  const register = <Id extends OperationId>(id: Id) => {
    const handler = handlers[id];
    if (!handler) throw new Error(`No handler for route ${id}`);
    const typed = routeOf(id);
    const route: RouteContract = typed;
    app.route<RouteGenericInterface, ContextConfigDefault, RequestSchemaOf<RouteOf<Id>>>({
      method: route.method,
      url: route.path,
      schema: fastifyRouteSchema(typed),
      // An optional body that was not sent is validated, and handled, as `{}`.
      preValidation: route.optionalBody
        ? (request, _reply, done) => {
            // Only a missing body: a JSON `null` stays null, and is refused by the schema.
            if (request.body === undefined) request.body = {} as typeof request.body;
            done();
          }
        : undefined,
      onRequest: route.auth !== 'public' ? async (request) => authenticateRequest(deps, route, request) : undefined,
      preHandler: route.permission
        ? (request, _reply, done) => {
            try {
              authorizeRoute(request.caller!, route.permission!, isPathParams(request.params) ? request.params : {});
              done();
            } catch (error) {
              done(error as Error);
            }
          }
        : undefined,
      handler: async (request, reply) => {
        let signal: AbortSignal | undefined;
        // A dry run runs the whole use case on a state whose transactions roll back (core/dry-run.ts).
        const dryRun = route.dryRun === true && (request.query as { dryRun?: boolean } | undefined)?.dryRun === true;
        if (dryRun) reply.header('occ-dry-run', 'true');
        const result = await handler({
          deps: dryRun ? { ...deps, state: dryRunState(deps.state) } : deps,
          caller: request.caller!,
          params: request.params,
          query: request.query,
          body: request.body,
          headers: request.headers,
          session: request.consoleSession,
          secure: request.protocol === 'https',
          requestId: request.id,
          openapi: () => app.swagger(),
          // Only handlers that read it (discovery) pay for a controller and a close listener.
          get signal() {
            return (signal ??= clientGone(reply));
          },
        });
        for (const [name, value] of Object.entries(result.headers ?? {})) reply.header(name, value);
        reply.status(result.status !== undefined && result.status === route.alternativeSuccess?.status ? result.status : route.successStatus);
        if (route.produces === 'text/event-stream') return sendEventStream(reply, result.data as EventStream);
        if (route.successStatus === 204) return reply.send();
        return reply.send(route.raw ? result.data : { data: result.data, meta: { requestId: request.id } });
      },
    });
  };

  for (const route of routes) {
    const id = route.operationId;
    if (!isOperationId(id) || !handlers[id]) throw new Error(`No handler for route ${id}`);
    if (route.auth === 'api_key' && !route.permission && !route.anyCaller) throw new Error(`Route ${id} takes an API key but declares no permission`);
    // `anyCaller` skips authorization, so it may only mark a read of the caller's own kind (GET, signed in).
    if (route.anyCaller && (route.permission || route.method !== 'GET' || route.auth !== 'api_key'))
      throw new Error(`Route ${id}: anyCaller marks a GET route that takes an API key and declares no permission`);
    // Handlers are typed from the table's own routes: any other route could not keep that promise.
    if (routeOf(id) !== route) throw new Error(`Route ${id} is not the route table's`);
    register(id);
  }
  // Not API routes: outside the route table and OpenAPI; they set their own cache-control.
  if (options.consoleDirectory) registerConsole(app, loadConsoleAssets(options.consoleDirectory));
  registerBrowserSignIn(app, deps);
  return app;
}
