import { apiRoutes, type OperationId, type RouteOf } from '@occ/contracts';

const OPERATIONS = new Set<string>(apiRoutes.map((route) => route.operationId));

/** The route table names this operation (so a handler typed from its route can exist). */
export const isOperationId = (id: string): id is OperationId => OPERATIONS.has(id);

/** The table's route of an operation, with its exact types. */
export function routeOf<Id extends OperationId>(id: Id): RouteOf<Id> {
  const route = apiRoutes.find((candidate): candidate is RouteOf<Id> => candidate.operationId === id);
  if (!route) throw new Error(`No route ${id} in the route table`);
  return route;
}

/** Path parameters as the router hands them over: string values only (a route without any has none). */
export function isPathParams(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && Object.values(value).every((v) => typeof v === 'string');
}
