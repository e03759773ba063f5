import { describeCaller } from '../../core/use-cases/caller.ts';
import { serverVersion } from '../../core/use-cases/server-version.ts';
import { ok, type HandlerMap } from './handler.ts';

/** The routes any signed-in caller may read (routes/caller.ts): itself, and the server's version. */
export const callerHandlers = {
  getCaller: async ({ deps, caller, session }) => ok(await describeCaller(deps, caller, session ? (session.kind === 'cli' ? 'cli_session' : 'console_session') : 'api_key')),
  getVersion: async ({ deps }) => ok(await serverVersion(deps)),
} satisfies Partial<HandlerMap>;
