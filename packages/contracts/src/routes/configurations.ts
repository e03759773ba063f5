import { ConfigurationSchema, CreateConfigurationBodySchema, UpdateConfigurationBodySchema } from '../resources/configuration.ts';
import { namespacedCrudRoutes } from './namespaced-crud.ts';

export const configurationRoutes = namespacedCrudRoutes({
  kind: 'configuration', noun: 'Configuration', plural: 'configurations', item: ConfigurationSchema,
  createBody: CreateConfigurationBodySchema, updateBody: UpdateConfigurationBodySchema,
  updateNote: 'Every update increases the generation.',
});
