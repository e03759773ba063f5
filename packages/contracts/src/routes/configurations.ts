import { ConfigurationSchema, CreateConfigurationBodySchema, UpdateConfigurationBodySchema } from '../resources/configuration.ts';
import { namespacedCrudRoutes } from './namespaced-crud.ts';

export const configurationRoutes = namespacedCrudRoutes({
  kind: 'configuration',
  noun: 'Configuration',
  plural: 'configurations',
  item: ConfigurationSchema,
  createBody: CreateConfigurationBodySchema,
  updateBody: UpdateConfigurationBodySchema,
  updateNote: 'Honours If-Match (412 PRECONDITION_FAILED on a stale ETag; the ETag is the generation). Every update increases the generation.',
});
