import { createSecret, deleteSecret, getSecret, listSecrets, rotateSecret } from '../../core/use-cases/secrets.ts';
import { none, ok, type HandlerMap } from './handler.ts';

export const secretHandlers = {
  createSecret: async ({ deps, caller, params, body }) => ok(await createSecret(deps, caller, params.ns, body)),
  listSecrets: async ({ deps, caller, params, query }) => ok(await listSecrets(deps, caller, params.ns, query)),
  getSecret: async ({ deps, caller, params }) => ok(await getSecret(deps, caller, params.ns, params.id)),
  updateSecret: async ({ deps, caller, params, body }) => ok(await rotateSecret(deps, caller, params.ns, params.id, body)),
  deleteSecret: async ({ deps, caller, params }) => (await deleteSecret(deps, caller, params.ns, params.id), none()),
} satisfies Partial<HandlerMap>;
