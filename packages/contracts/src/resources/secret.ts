import { Type, type Static } from '@sinclair/typebox';
import { Closed, IdSchema, NameSchema, TimestampSchema } from '../common.ts';

/** Secret values: UTF-8 text, 1 to 65,536 characters, no NUL. Write-only over the API. */
export const SecretValueSchema = Type.String({ minLength: 1, maxLength: 65536, pattern: '^[^\\u0000]+$' });

/** Metadata only: a Secret's value never appears in a response. */
export const SecretSchema = Closed({
  id: IdSchema('secret'),
  namespaceId: IdSchema('namespace'),
  name: NameSchema,
  version: Type.Integer({ minimum: 1 }),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
});
export type Secret = Static<typeof SecretSchema>;

export const CreateSecretBodySchema = Closed({ name: NameSchema, value: SecretValueSchema });
export type CreateSecretBody = Static<typeof CreateSecretBodySchema>;

export const UpdateSecretBodySchema = Closed({ value: SecretValueSchema });
export type UpdateSecretBody = Static<typeof UpdateSecretBodySchema>;
