import { Type, type Static } from '@sinclair/typebox';
import { Closed, IdSchema, NameSchema, TimestampSchema } from '../common.ts';
import { ApproverListSchema, PluginMapSchema } from '../plugin-map.ts';

export const HARNESSES = ['openclaw', 'codex'] as const;
export type Harness = (typeof HARNESSES)[number];
export const HarnessSchema = Type.Union(HARNESSES.map((h) => Type.Literal(h)));

export const HarnessAuthSchema = Closed({ method: Type.Literal('codex_pat'), secretId: IdSchema('secret') });
export type HarnessAuth = Static<typeof HarnessAuthSchema>;

export const AgentSchema = Closed({
  id: IdSchema('agent'),
  namespaceId: IdSchema('namespace'),
  name: NameSchema,
  configurationId: IdSchema('configuration'),
  harness: HarnessSchema,
  harnessAuth: Type.Union([HarnessAuthSchema, Type.Null()]),
  plugins: PluginMapSchema,
  /** Agent-wide default approvers; null = none configured, [] = nobody may approve. */
  pluginApprovers: Type.Union([ApproverListSchema, Type.Null()]),
  servicePrincipalId: IdSchema('principal'),
  /** running after a deploy, stopped after a stop (or before the first deploy). */
  desiredState: Type.Union([Type.Literal('running'), Type.Literal('stopped')]),
  /** The revision last committed to run; not by itself evidence of readiness. */
  activeRevisionId: Type.Union([IdSchema('agent_revision'), Type.Null()]),
  version: Type.Integer({ minimum: 1 }),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
});
export type Agent = Static<typeof AgentSchema>;

export const CreateAgentBodySchema = Closed({
  name: NameSchema,
  configurationId: IdSchema('configuration'),
  harness: HarnessSchema,
  harnessAuth: Type.Optional(HarnessAuthSchema),
  plugins: Type.Optional(PluginMapSchema),
  pluginApprovers: Type.Optional(ApproverListSchema),
});
export type CreateAgentBody = Static<typeof CreateAgentBodySchema>;

/**
 * PATCH: an omitted field is preserved. `plugins: {}` clears the map and a non-empty map
 * replaces it whole; `pluginApprovers` likewise ([] = nobody, null = no Agent default);
 * `harnessAuth: null` removes the binding.
 */
export const UpdateAgentBodySchema = Closed(
  {
    name: Type.Optional(NameSchema),
    configurationId: Type.Optional(IdSchema('configuration')),
    harnessAuth: Type.Optional(Type.Union([HarnessAuthSchema, Type.Null()])),
    plugins: Type.Optional(PluginMapSchema),
    pluginApprovers: Type.Optional(Type.Union([ApproverListSchema, Type.Null()])),
  },
  { minProperties: 1 },
);
export type UpdateAgentBody = Static<typeof UpdateAgentBodySchema>;
