import { OCC_VERSION, type ServerVersion } from '@occ/contracts';
import type { ControllerDeps } from '../deps.ts';
import { OccError } from '../errors.ts';

/** Which OCC answers (`GET /version`): the release, the database schema it runs on, and its Node.js. */
export async function serverVersion(deps: ControllerDeps): Promise<ServerVersion> {
  let applied: number;
  try {
    ({ applied } = await deps.state.schemaStatus());
  } catch {
    throw new OccError('DEPENDENCY_UNAVAILABLE', 'The database is unreachable.');
  }
  return { version: OCC_VERSION, schemaVersion: applied, node: process.version };
}
