import type { Configuration } from '@occ/contracts';
import { createConfiguration, deleteConfiguration, getConfiguration, listConfigurations, updateConfiguration } from '../../core/use-cases/configurations.ts';
import { expectedVersion, withEtag } from './etag.ts';
import { none, ok, type HandlerMap, type HandlerResult } from './handler.ts';

/** The Configuration's generation is its entity tag. */
const configurationEtag = (configuration: Configuration): HandlerResult<Configuration> => withEtag(configuration, configuration.generation);

export const configurationHandlers = {
  createConfiguration: async ({ deps, caller, params, body }) => configurationEtag(await createConfiguration(deps, caller, params.ns, body)),
  listConfigurations: async ({ deps, caller, params, query }) => ok(await listConfigurations(deps, caller, params.ns, query)),
  getConfiguration: async ({ deps, caller, params }) => configurationEtag(await getConfiguration(deps, caller, params.ns, params.id)),
  updateConfiguration: async ({ deps, caller, params, body, headers }) =>
    configurationEtag(await updateConfiguration(deps, caller, params.ns, params.id, body, expectedVersion(headers['if-match']))),
  deleteConfiguration: async ({ deps, caller, params }) => (await deleteConfiguration(deps, caller, params.ns, params.id), none()),
} satisfies Partial<HandlerMap>;
