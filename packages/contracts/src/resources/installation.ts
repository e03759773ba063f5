import { Type, type Static } from '@sinclair/typebox';
import { Closed, IdSchema, TimestampSchema } from '../common.ts';
import { PluginPolicyCapabilitiesSchema } from '../plugin-map.ts';

/** What one harness can do on this Installation; `pluginDriver: null` = no PluginDriver configured. */
export const HarnessCapabilitiesSchema = Closed({
  pluginDriver: Type.Union([Type.String(), Type.Null()]),
  pluginPolicies: Type.Union([PluginPolicyCapabilitiesSchema, Type.Null()]),
});
export type HarnessCapabilities = Static<typeof HarnessCapabilitiesSchema>;

export const InstallationCapabilitiesSchema = Closed({
  harnesses: Closed({ openclaw: HarnessCapabilitiesSchema, codex: HarnessCapabilitiesSchema }),
});
export type InstallationCapabilities = Static<typeof InstallationCapabilitiesSchema>;

export const InstallationSchema = Closed({
  id: IdSchema('installation'),
  name: Type.String(),
  createdAt: TimestampSchema,
  capabilities: InstallationCapabilitiesSchema,
});
export type Installation = Static<typeof InstallationSchema>;

export const AgentPluginCapabilitiesSchema = Closed({
  harness: Type.Union([Type.Literal('openclaw'), Type.Literal('codex')]),
  pluginDriver: Type.Union([Type.String(), Type.Null()]),
  pluginPolicies: Type.Union([PluginPolicyCapabilitiesSchema, Type.Null()]),
  /** What the Installation's compute target runs at all (`driver`: its id, null without compute): the ssh target runs neither plugins nor Agent default approvers. */
  compute: Closed({ driver: Type.Union([Type.String(), Type.Null()]), plugins: Type.Boolean(), agentApprovers: Type.Boolean() }),
});
