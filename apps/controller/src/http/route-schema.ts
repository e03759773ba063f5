import type { TSchema } from '@sinclair/typebox';
import { Envelope, ErrorEnvelopeSchema, type RouteContract } from '@occ/contracts';

/** The request schemas a route declares, as Fastify sees them (a part the route omits is `unknown`). */
export interface RequestSchemaOf<R extends RouteContract> {
  params: R['schemas']['params'];
  querystring: R['schemas']['querystring'];
  body: R['schemas']['body'];
}

/** What else the route's Fastify schema carries: the OpenAPI metadata and the answers. */
export interface RouteDocumentation {
  operationId: string;
  summary: string;
  tags: string[];
  security?: ({ apiKey: never[] } | { cookieAuth: never[] })[];
  response?: Record<number, ResponseSchema>;
}

/** An answer's schema: a JSON envelope, no content, or content of another media type (an event stream). */
type ResponseSchema = TSchema | { type: 'null'; description: string } | { description: string; content: Record<string, { schema: TSchema }> };

const REQUEST_PARTS = ['params', 'querystring', 'body'] as const;

const STREAM_DESCRIPTIONS: Record<NonNullable<RouteContract['produces']>, string> = {
  'text/event-stream': 'A Server-Sent Events stream; each `data:` is this JSON.',
  'application/x-ndjson': 'Newline-delimited JSON: one line per item, each this JSON.',
};

/** The Fastify/OpenAPI schema of one route, derived from its contract. */
export function fastifyRouteSchema<R extends RouteContract>(route: R): RequestSchemaOf<R> & RouteDocumentation {
  const response: Record<number, ResponseSchema> = {};
  if (route.successStatus === 204) response[204] = { type: 'null', description: 'No content.' };
  else if (route.produces && route.schemas.data)
    response[route.successStatus] = { description: STREAM_DESCRIPTIONS[route.produces], content: { [route.produces]: { schema: route.schemas.data } } };
  else if (route.schemas.data) response[route.successStatus] = Envelope(route.schemas.data);
  if (route.alternativeSuccess) response[route.alternativeSuccess.status] = { ...Envelope(route.alternativeSuccess.data), description: route.alternativeSuccess.description };
  for (const status of route.errors) response[status] = ErrorEnvelopeSchema;
  const schema: RequestSchemaOf<R> & RouteDocumentation = {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    // A key or a console session (either one suffices); the session routes take only the cookie.
    ...(route.auth === 'api_key' ? { security: [{ apiKey: [] }, { cookieAuth: [] }] } : {}),
    ...(route.auth === 'session' ? { security: [{ cookieAuth: [] }] } : {}),
    params: route.schemas.params,
    querystring: route.schemas.querystring,
    body: route.schemas.body,
    // A raw document (the OpenAPI document) has no schema; a raw NDJSON text has its line's.
    ...(route.raw && !route.produces ? {} : { response }),
  };
  // Fastify and the OpenAPI generator take a present key for a declared part: drop the absent ones.
  for (const part of REQUEST_PARTS) if (schema[part] === undefined) delete schema[part];
  return schema;
}
