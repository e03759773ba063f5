import { CreateSecretBodySchema, SecretSchema, UpdateSecretBodySchema } from '../resources/secret.ts';
import { namespacedCrudRoutes } from './namespaced-crud.ts';

export const secretRoutes = namespacedCrudRoutes({
  kind: 'secret',
  noun: 'Secret',
  plural: 'secrets',
  item: SecretSchema,
  createBody: CreateSecretBodySchema,
  updateBody: UpdateSecretBodySchema,
  updateNote: 'PATCH {value} rotates the value; responses carry metadata only.',
});
