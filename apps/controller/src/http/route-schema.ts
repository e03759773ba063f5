import type { TSchema } from '@sinclair/typebox';
import { Envelope, ErrorEnvelopeSchema, type RouteContract } from '@occ/contracts';

/** The Fastify/OpenAPI schema of one route, derived from its contract. */
export function fastifyRouteSchema(route: RouteContract): Record<string, unknown> {
  const response: Record<string, TSchema | { type: 'null'; description: string }> = {};
  if (route.successStatus === 204) response[204] = { type: 'null', description: 'No content.' };
  else if (route.schemas.data) response[route.successStatus] = Envelope(route.schemas.data);
  for (const status of route.errors) response[status] = ErrorEnvelopeSchema;
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(route.auth === 'api_key' ? { security: [{ apiKey: [] }] } : {}),
    ...(route.schemas.params ? { params: route.schemas.params } : {}),
    ...(route.schemas.querystring ? { querystring: route.schemas.querystring } : {}),
    ...(route.schemas.body ? { body: route.schemas.body } : {}),
    ...(route.raw ? {} : { response }),
  };
}
