import { Type, type Static } from '@sinclair/typebox';
import { Closed, IdSchema } from './common.ts';
import { ApproverListSchema, PluginMapSchema } from './plugin-map.ts';
import { HarnessSchema } from './resources/agent.ts';
import { ConfigurationValuesSchema } from './resources/configuration.ts';

/**
 * The environment variable that carries the Agent's `codex_pat` into its runtime (the value is
 * delivered by the ComputeDriver at every start, never written into the manifest).
 */
export const CODEX_PAT_ENVIRONMENT = 'OCC_RUNTIME_CODEX_PAT';

/** How the harness authenticates: the method and the NAME of the variable that holds the credential (never a value). */
export const RuntimeHarnessAuthSchema = Closed({ method: Type.Literal('codex_pat'), environment: Type.Literal(CODEX_PAT_ENVIRONMENT) });
export type RuntimeHarnessAuth = Static<typeof RuntimeHarnessAuthSchema>;

/**
 * What a revision's runtime receives (Kubernetes: a projected ConfigMap; Docker: bounded
 * environment; local: a private 0600 file). Non-secret by construction: Secrets appear only
 * as the names of environment variables the compute driver fills in.
 */
export const RuntimeManifestSchema = Closed({
  manifestVersion: Type.Literal(1),
  namespaceId: IdSchema('namespace'),
  agentId: IdSchema('agent'),
  revisionId: IdSchema('agent_revision'),
  revision: Type.Integer({ minimum: 1 }),
  harness: HarnessSchema,
  /** The Agent's harness credential, as the name of the variable it arrives in; null: none (the OpenClaw harness, or a Codex Agent without one). */
  harnessAuth: Type.Union([RuntimeHarnessAuthSchema, Type.Null()]),
  plugins: Closed({ driverId: Type.Union([Type.String(), Type.Null()]), selections: PluginMapSchema, approvers: Type.Union([ApproverListSchema, Type.Null()]) }),
  configuration: Closed({ id: IdSchema('configuration'), generation: Type.Integer({ minimum: 1 }), values: ConfigurationValuesSchema }),
  secretEnvironment: Type.Array(Type.String({ pattern: '^[A-Z_][A-Z0-9_]{0,127}$' })),
});
export type RuntimeManifest = Static<typeof RuntimeManifestSchema>;
