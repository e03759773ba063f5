import { Type, type Static } from '@sinclair/typebox';
import { Closed, IdSchema, TimestampSchema } from '../common.ts';
import { ApproverListSchema, PluginMapSchema } from '../plugin-map.ts';
import { HarnessAuthSchema, HarnessSchema } from './agent.ts';
import { ConfigurationValuesSchema, SecretBindingsSchema } from './configuration.ts';
import { STORED_REASON_CODES } from '../work-outcomes.ts';

const revisionIdentity = {
  id: IdSchema('agent_revision'),
  namespaceId: IdSchema('namespace'),
  agentId: IdSchema('agent'),
  revision: Type.Integer({ minimum: 1 }),
  harness: HarnessSchema,
  harnessAuth: Type.Union([HarnessAuthSchema, Type.Null()]),
  pluginDriverId: Type.Union([Type.String(), Type.Null()]),
  computeDriverId: Type.String(),
  plugins: PluginMapSchema,
  pluginApprovers: Type.Union([ApproverListSchema, Type.Null()]),
};
const revisionAuthorship = {
  servicePrincipalId: IdSchema('principal'),
  actorId: IdSchema('principal'),
  createdAt: TimestampSchema,
};

/**
 * The immutable snapshot a deploy admits, as stored and as the worker and compute use it.
 * Policy only: native metadata (versions, tools, app mapping) is resolved by the runtime at
 * startup, never here. Secret values are never part of it — only references.
 */
export const AgentRevisionSchema = Closed({
  ...revisionIdentity,
  configuration: Closed({
    id: IdSchema('configuration'),
    generation: Type.Integer({ minimum: 1 }),
    values: ConfigurationValuesSchema,
    secretBindings: SecretBindingsSchema,
  }),
  ...revisionAuthorship,
});
export type AgentRevision = Static<typeof AgentRevisionSchema>;

/**
 * A revision's Configuration snapshot as the API answers it. Its content (values and Secret
 * bindings) is the Configuration's, so only a caller who may `read` that Configuration gets it
 * (`withheld: false`); anyone else who may read the Agent gets its id and generation only
 * (`withheld: true`).
 */
export const RevisionConfigurationViewSchema = Type.Union([
  Closed({
    id: IdSchema('configuration'),
    generation: Type.Integer({ minimum: 1 }),
    withheld: Type.Literal(false),
    values: ConfigurationValuesSchema,
    secretBindings: SecretBindingsSchema,
  }),
  Closed(
    { id: IdSchema('configuration'), generation: Type.Integer({ minimum: 1 }), withheld: Type.Literal(true) },
    { description: 'The caller may not read this Configuration: its values and Secret bindings are withheld.' },
  ),
]);
export type RevisionConfigurationView = Static<typeof RevisionConfigurationViewSchema>;

/** An AgentRevision as the API answers it (deploy, revision read and list). */
export const AgentRevisionViewSchema = Closed({ ...revisionIdentity, configuration: RevisionConfigurationViewSchema, ...revisionAuthorship });
export type AgentRevisionView = Static<typeof AgentRevisionViewSchema>;

/** The closed vocabulary of plugin warnings a deployment may carry. */
export const PLUGIN_WARNING_CODES = ['PLUGIN_INSTALL_FAILED', 'PLUGIN_AUTH_REQUIRED'] as const;
export type PluginWarningCode = (typeof PLUGIN_WARNING_CODES)[number];
export const PluginWarningSchema = Closed({
  pluginId: Type.String(),
  code: Type.Union(PLUGIN_WARNING_CODES.map((c) => Type.Literal(c))),
});
export type PluginWarning = Static<typeof PluginWarningSchema>;

/** Where a deploy stands; `superseded` and `stopped`: overtaken before it became active (neither success nor failure). */
export const DEPLOYMENT_STATES = ['queued', 'running', 'succeeded', 'failed', 'superseded', 'stopped'] as const;
export type DeploymentState = (typeof DEPLOYMENT_STATES)[number];
/** A work item's reason code: the closed registry of @occ/contracts work-outcomes.ts. */
const ReasonCodeSchema = Type.Union(STORED_REASON_CODES.map((c) => Type.Literal(c)));

/** Projected from stored rows only; no live probe. Warnings describe this deploy attempt, not ongoing health. */
export const DeploymentStatusSchema = Closed({
  revisionId: IdSchema('agent_revision'),
  agentId: IdSchema('agent'),
  revision: Type.Integer({ minimum: 1 }),
  state: Type.Union(DEPLOYMENT_STATES.map((s) => Type.Literal(s))),
  /** The code of the outcome or of the last attempt (e.g. REVISION_ACTIVATED, REVISION_SUPERSEDED, GATEWAY_STARTING). */
  reasonCode: Type.Union([ReasonCodeSchema, Type.Null()]),
  attempts: Type.Integer({ minimum: 0 }),
  lastAttempt: Type.Union([Closed({ code: Type.Union([ReasonCodeSchema, Type.Null()]), at: TimestampSchema }), Type.Null()]),
  nextAttemptAt: Type.Union([TimestampSchema, Type.Null()]),
  error: Type.Union([Closed({ code: Type.String(), message: Type.String() }), Type.Null()]),
  warnings: Type.Array(PluginWarningSchema),
  /** Whether the Agent's pointer names this revision now (a pointer alone is not readiness). */
  active: Type.Boolean(),
});
export type DeploymentStatus = Static<typeof DeploymentStatusSchema>;

export const StopResultSchema = Closed({ agentId: IdSchema('agent'), desiredState: Type.Literal('stopped'), workId: IdSchema('work_item') });
