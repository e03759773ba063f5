import { Type, type Static } from '@sinclair/typebox';
import { Closed, IdSchema, NameSchema, TimestampSchema } from '../common.ts';

/** The serialized native configuration may not exceed this many bytes (UTF-8 JSON). */
export const MAX_CONFIGURATION_BYTES = 256 * 1024;

export const ENV_NAME_PATTERN = '^[A-Z_][A-Z0-9_]{0,127}$';

/** Native OpenClaw configuration: any JSON object; OpenClaw itself validates it at startup. */
export const ConfigurationValuesSchema = Type.Object({}, { additionalProperties: true, description: 'Native OpenClaw configuration (JSON object, at most 256 KiB serialized).' });

/** Environment variables the runtime receives from Secrets of the same Namespace. */
export const SecretBindingsSchema = Type.Record(Type.String({ pattern: ENV_NAME_PATTERN }), Closed({ secretId: IdSchema('secret') }), {
  maxProperties: 64,
  additionalProperties: false,
});

export const ConfigurationSchema = Closed({
  id: IdSchema('configuration'),
  namespaceId: IdSchema('namespace'),
  name: NameSchema,
  generation: Type.Integer({ minimum: 1 }),
  values: ConfigurationValuesSchema,
  secretBindings: SecretBindingsSchema,
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
});
export type Configuration = Static<typeof ConfigurationSchema>;

export const CreateConfigurationBodySchema = Closed({
  name: NameSchema,
  values: ConfigurationValuesSchema,
  secretBindings: Type.Optional(SecretBindingsSchema),
});
export type CreateConfigurationBody = Static<typeof CreateConfigurationBodySchema>;

export const UpdateConfigurationBodySchema = Closed(
  { name: Type.Optional(NameSchema), values: Type.Optional(ConfigurationValuesSchema), secretBindings: Type.Optional(SecretBindingsSchema) },
  { minProperties: 1 },
);
export type UpdateConfigurationBody = Static<typeof UpdateConfigurationBodySchema>;
