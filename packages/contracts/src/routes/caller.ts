import { CallerSchema, ServerVersionSchema } from '../resources/caller.ts';
import type { RouteContract } from './route-contract.ts';

/**
 * What any signed-in caller may read, whatever its bindings: who it is, and which OCC it talks
 * to. Neither names a resource, so there is nothing to authorize: both declare `anyCaller`
 * instead of a permission (the controller accepts that on GET routes only).
 */
export const callerRoutes = [
  {
    operationId: 'getCaller',
    method: 'GET',
    path: '/whoami',
    tag: 'iam',
    summary: 'The principal this request signs in as (id, name, kind) and its credential (API key or console session). Any valid key may read it.',
    auth: 'api_key',
    anyCaller: true,
    successStatus: 200,
    errors: [401, 500, 503],
    schemas: { data: CallerSchema },
  },
  {
    operationId: 'getVersion',
    method: 'GET',
    path: '/version',
    tag: 'system',
    summary: "The controller's OCC version, database schema version and Node.js version. Any valid key may read it.",
    auth: 'api_key',
    anyCaller: true,
    successStatus: 200,
    errors: [401, 500, 503],
    schemas: { data: ServerVersionSchema },
  },
] as const satisfies readonly RouteContract[];
