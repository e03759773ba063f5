import { apiRoutes } from '@occ/contracts';
import type { ApiClient } from '@occ/contracts/client';

/** The operations the API can run as a dry run (RouteContract.dryRun: creates and updates of what apply saves), and the reads. */
const DRY_RUNNABLE = new Set<string>(apiRoutes.filter((route) => 'dryRun' in route && route.dryRun === true).map((route) => route.operationId));
const READS = new Set<string>(apiRoutes.filter((route) => route.method === 'GET').map((route) => route.operationId));

/**
 * The client `occ apply --dry-run=server` plans and "writes" with: every create and update goes
 * with `?dryRun=true`, so the server runs it whole (authorization, validation, its own
 * constraints) and keeps nothing; reads pass as they are. A write the API cannot dry-run is
 * refused here, so a server dry run never writes.
 */
export function serverDryRunClient(client: ApiClient): ApiClient {
  return {
    server: client.server,
    listAll: (operationId, input) => client.listAll(operationId, input),
    stream: (operationId, input) => client.stream(operationId, input),
    call: (operationId, input) => {
      if (READS.has(operationId)) return client.call(operationId, input);
      if (!DRY_RUNNABLE.has(operationId)) throw new Error(`${operationId} has no server dry run`);
      return client.call(operationId, { ...input, query: { ...(input.query as object | undefined), dryRun: true } } as typeof input);
    },
  };
}
