import type { PluginPolicyCapabilities, PluginSelection, PolicyViolation } from '@occ/contracts';
import type { PluginPolicyRules } from './driver-rules.ts';
import { pointer } from './json-pointer.ts';
import { freezeDeep, stripPrefix, validateSelections, violation, type DriverPolicySpec } from './shared-rules.ts';

export const OPENCLAW_SELECTION_PREFIX = 'openclaw:';
/** A plain or scoped npm-style package name, lowercase as npm requires for new packages. */
export const OPENCLAW_NATIVE_ID_PATTERN = /^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/;

const capabilities: PluginPolicyCapabilities = freezeDeep({
  driverId: 'openclaw-curated',
  harness: 'openclaw',
  approval: { toolDefaults: ['provider_default', 'none'], tools: ['provider_default', 'none'] },
  reviewer: { toolDefaults: [], tools: [] },
  approvers: { agent: true, plugin: true, tool: true },
  driverPolicySchema: { type: 'object', additionalProperties: false, properties: {}, maxProperties: 0 },
});

function nativePluginId(selectionKey: string): string {
  return stripPrefix(selectionKey, OPENCLAW_SELECTION_PREFIX);
}

function checkSelection(selectionKey: string, selection: PluginSelection): PolicyViolation[] {
  if (selection.driverPolicy === undefined) return [];
  // Rejected even when empty: the driver has no policy, so the field can only be a mistake.
  const path = pointer('plugins', selectionKey, 'driverPolicy');
  return [violation(path, 'UNSUPPORTED_FIELD', 'This driver does not accept a driver policy.')];
}

const spec: DriverPolicySpec = {
  capabilities,
  nativePluginId,
  isValidSelectionKey: (selectionKey) => OPENCLAW_NATIVE_ID_PATTERN.test(nativePluginId(selectionKey)),
  checkSelection,
};

export const openclawCuratedRules = freezeDeep<PluginPolicyRules>({
  driverId: 'openclaw-curated',
  harness: 'openclaw',
  capabilities,
  validatePolicies: (plugins, agentApprovers) => validateSelections(spec, plugins, agentApprovers),
  nativePluginId,
});
