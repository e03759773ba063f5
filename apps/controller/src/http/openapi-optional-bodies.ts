import type { RouteContract } from '@occ/contracts';

/** `/a/:b/c` → `/a/{b}/c`, as the OpenAPI document names the path. */
const openapiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/**
 * @fastify/swagger marks every declared request body required; a route whose body is optional
 * (deploy: dry run, rollback) says it is not, so a generated client may send none.
 */
export function markOptionalBodies<Doc>(document: Doc, routes: readonly RouteContract[]): Doc {
  const paths = (document as { paths?: Record<string, Record<string, { requestBody?: { required?: boolean } }>> }).paths ?? {};
  for (const route of routes) {
    if (!route.optionalBody) continue;
    const body = paths[openapiPath(route.path)]?.[route.method.toLowerCase()]?.requestBody;
    if (body) body.required = false;
  }
  return document;
}
