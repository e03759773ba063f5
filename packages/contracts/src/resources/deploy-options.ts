import { Type, type Static } from '@sinclair/typebox';
import { Closed, IdSchema } from '../common.ts';
import { POLICY_VIOLATION_CODES } from '../plugin-map.ts';
import { AgentRevisionViewSchema } from './revision.ts';

/**
 * The optional body of `POST …/agents/:id/deploy` (beyond the specification). Absent or empty:
 * a deploy of the Agent's desired state. `fromRevision` (an AgentRevision id or number of this
 * Agent) rolls back by admitting that revision's snapshot as a NEW revision and making it the
 * Agent's desired state; `dryRun` runs every admission check and writes nothing; `restart` admits
 * a new revision even when it would equal the active one (otherwise such a deploy is a no-op).
 */
export const DeployRequestSchema = Closed(
  {
    dryRun: Type.Optional(Type.Boolean({ description: 'Run every admission check and answer 200 with the revision it would admit; nothing is written.' })),
    fromRevision: Type.Optional(
      Type.Union([IdSchema('agent_revision'), Type.Integer({ minimum: 1 })], {
        description:
          "Roll back: admit the snapshot of this older revision (id or number) as a new revision; the Agent's plugins, approvers, harness auth and Configuration binding become that revision's.",
      }),
    ),
    restart: Type.Optional(Type.Boolean({ description: 'Admit a new revision (and restart the runtime) even when it would equal the active revision.' })),
  },
  { description: 'Optional: an absent or empty body deploys the Agent as it is.' },
);
export type DeployRequest = Static<typeof DeployRequestSchema>;

/** The revision a dry run would admit: no id and no number are spent (`null`). */
export const DryRunRevisionViewSchema = Closed({ ...AgentRevisionViewSchema.properties, id: Type.Null(), revision: Type.Null() });
export type DryRunRevisionView = Static<typeof DryRunRevisionViewSchema>;

const NativeSection = Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]);

/**
 * What the runtime would write for the revision, as far as the controller can know it:
 * - `translated` (OpenClaw): the `plugins` and `tools` sections of the effective configuration,
 *   from the same translator the runtime runs (no install failure assumed);
 * - `refused` (OpenClaw): the translator refuses the selections against the catalog or the
 *   Configuration (the runtime would fail the deploy at startup), with pointers and codes;
 * - `unavailable`: `RESOLVED_AT_STARTUP` (Codex: the bridge and app tables come from the
 *   marketplace the app-server reads at startup), `NO_PLUGIN_DRIVER` or `NOT_TRANSLATABLE`
 *   (the harness's PluginDriver has no static translation).
 */
export const NativeConfigurationPreviewSchema = Type.Union([
  Closed({ status: Type.Literal('translated'), harness: Type.Literal('openclaw'), plugins: NativeSection, tools: NativeSection, unselectedDisabled: Type.Array(Type.String()) }),
  Closed({
    status: Type.Literal('refused'),
    harness: Type.Literal('openclaw'),
    violations: Type.Array(Closed({ path: Type.String(), code: Type.Union(POLICY_VIOLATION_CODES.map((c) => Type.Literal(c))) })),
  }),
  Closed({
    status: Type.Literal('unavailable'),
    harness: Type.String(),
    reason: Type.Union([Type.Literal('RESOLVED_AT_STARTUP'), Type.Literal('NO_PLUGIN_DRIVER'), Type.Literal('NOT_TRANSLATABLE')]),
  }),
]);
export type NativeConfigurationPreview = Static<typeof NativeConfigurationPreviewSchema>;

/** The 200 answer of a deploy with nothing to change: the active revision already runs this snapshot; nothing was written but the audit event. */
export const DeployUnchangedSchema = Closed({ unchanged: Type.Literal(true), revision: AgentRevisionViewSchema });
export type DeployUnchanged = Static<typeof DeployUnchangedSchema>;

/** The 200 answer of a dry run. */
export const DeployDryRunSchema = Closed({ dryRun: Type.Literal(true), revision: DryRunRevisionViewSchema, nativeConfiguration: NativeConfigurationPreviewSchema });
export type DeployDryRun = Static<typeof DeployDryRunSchema>;
