import { Type, type Static } from '@sinclair/typebox';
import { Closed, IdSchema } from '../common.ts';

const ConfigurationRefSchema = Closed({ id: IdSchema('configuration'), generation: Type.Integer({ minimum: 1 }) });

/**
 * How the Agent's desired state differs from its active revision (`GET …/agents/:id/drift`). After
 * a rollback the two agree; a later edit shows here until it is deployed. With no active revision
 * (never deployed, or stopped) `inSync` is false and every difference is empty: there is nothing
 * to compare with.
 */
export const AgentDriftSchema = Closed({
  agentId: IdSchema('agent'),
  activeRevisionId: Type.Union([IdSchema('agent_revision'), Type.Null()]),
  activeRevision: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
  inSync: Type.Boolean(),
  /** Plugin ids selected only in the desired state, only in the active revision, and in both with another selection. */
  plugins: Closed({ added: Type.Array(Type.String()), removed: Type.Array(Type.String()), changed: Type.Array(Type.String()) }),
  pluginApprovers: Type.Boolean({ description: 'The Agent-wide default approvers differ.' }),
  harnessAuth: Type.Boolean({ description: 'The harness auth binding differs.' }),
  /** The Configuration the next deploy would snapshot against the active revision's, when they differ (another binding or a newer generation). */
  configuration: Type.Union([Closed({ active: ConfigurationRefSchema, desired: ConfigurationRefSchema }), Type.Null()]),
  /** The Installation's ComputeDriver against the one the active revision ran on, when they differ. */
  computeDriver: Type.Union([Closed({ active: Type.String(), desired: Type.String() }), Type.Null()]),
});
export type AgentDrift = Static<typeof AgentDriftSchema>;
