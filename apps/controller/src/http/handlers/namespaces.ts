import { deleteNamespaceSshHost, getNamespaceSshHost, putNamespaceSshHost } from '../../core/use-cases/namespace-ssh-hosts.ts';
import { createNamespace, deleteNamespace, getNamespace, listNamespaces } from '../../core/use-cases/namespaces.ts';
import { none, ok, type HandlerMap } from './handler.ts';

export const namespaceHandlers = {
  createNamespace: async ({ deps, caller, body }) => ok(await createNamespace(deps, caller, body)),
  listNamespaces: async ({ deps, caller, query }) => ok(await listNamespaces(deps, caller, query)),
  getNamespace: async ({ deps, caller, params }) => ok(await getNamespace(deps, caller, params.ns)),
  deleteNamespace: async ({ deps, caller, params }) => (await deleteNamespace(deps, caller, params.ns), none()),
  getNamespaceSshHost: async ({ deps, caller, params }) => ok(await getNamespaceSshHost(deps, caller, params.ns)),
  putNamespaceSshHost: async ({ deps, caller, params, body }) => ok(await putNamespaceSshHost(deps, caller, params.ns, body)),
  deleteNamespaceSshHost: async ({ deps, caller, params }) => (await deleteNamespaceSshHost(deps, caller, params.ns), none()),
} satisfies Partial<HandlerMap>;
