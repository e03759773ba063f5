import { OccError } from '../../core/errors.ts';
import { getInstallation } from '../../core/use-cases/installation.ts';
import { ok, type HandlerMap } from './handler.ts';

export const systemHandlers = {
  healthz: async () => ok({ status: 'ok' }),
  readyz: async ({ deps }) => {
    let status: { applied: number; expected: number };
    try {
      status = await deps.state.schemaStatus();
    } catch {
      throw new OccError('DEPENDENCY_UNAVAILABLE', 'The database is unreachable.');
    }
    if (status.applied !== status.expected) throw new OccError('DEPENDENCY_UNAVAILABLE', 'Database migrations are not applied.');
    return ok({ status: 'ready', schemaVersion: status.applied });
  },
  getOpenApi: async ({ openapi }) => ok(openapi()),
  getInstallation: async ({ deps }) => ok(await getInstallation(deps)),
} satisfies Partial<HandlerMap>;
