import {
  createConfiguration, deleteConfiguration, getConfiguration, listConfigurations, updateConfiguration,
} from '../../core/use-cases/configurations.ts';
import { none, ok, type HandlerMap } from './handler.ts';

export const configurationHandlers = {
  createConfiguration: async ({ deps, caller, params, body }) => ok(await createConfiguration(deps, caller, params.ns, body)),
  listConfigurations: async ({ deps, caller, params, query }) => ok(await listConfigurations(deps, caller, params.ns, query)),
  getConfiguration: async ({ deps, caller, params }) => ok(await getConfiguration(deps, caller, params.ns, params.id)),
  updateConfiguration: async ({ deps, caller, params, body }) => ok(await updateConfiguration(deps, caller, params.ns, params.id, body)),
  deleteConfiguration: async ({ deps, caller, params }) => (await deleteConfiguration(deps, caller, params.ns, params.id), none()),
} satisfies Partial<HandlerMap>;
