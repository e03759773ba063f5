import type { PluginPolicyCapabilities, PluginSelection, PolicyViolation } from '@occ/contracts';
import type { PluginPolicyRules } from './driver-rules.ts';
import { pointer } from './json-pointer.ts';
import { freezeDeep, stripPrefix, validateSelections, violation, type DriverPolicySpec } from './shared-rules.ts';

export const CODEX_SELECTION_PREFIX = 'codex:';
/** `<slug>@<marketplace>`, e.g. `linear@openai-curated-remote`. */
export const CODEX_NATIVE_ID_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9._-]{0,199}@[a-z0-9][a-z0-9._-]*$/;

const driverPolicyProperties: Readonly<Record<string, { type: 'boolean' }>> = {
  destructiveEnabled: { type: 'boolean' },
};

const capabilities: PluginPolicyCapabilities = freezeDeep({
  driverId: 'codex-hosted',
  harness: 'codex',
  approval: {
    toolDefaults: ['provider_default', 'all_actions', 'write_actions', 'none'],
    tools: ['provider_default', 'all_actions', 'write_actions', 'none'],
  },
  reviewer: { toolDefaults: ['human', 'auto'], tools: [] },
  // Codex approval requests carry no plugin or tool identity, so only the Agent-wide list can route them.
  approvers: { agent: true, plugin: false, tool: false },
  driverPolicySchema: { type: 'object', additionalProperties: false, properties: driverPolicyProperties },
});

function nativePluginId(selectionKey: string): string {
  return stripPrefix(selectionKey, CODEX_SELECTION_PREFIX);
}

function checkSelection(selectionKey: string, selection: PluginSelection): PolicyViolation[] {
  const driverPolicy = selection.driverPolicy;
  if (driverPolicy === undefined) return [];
  const violations: PolicyViolation[] = [];
  for (const field of Object.keys(driverPolicy).sort()) {
    const path = pointer('plugins', selectionKey, 'driverPolicy', field);
    const property = Object.hasOwn(driverPolicyProperties, field) ? driverPolicyProperties[field] : undefined;
    if (property === undefined) {
      violations.push(violation(path, 'UNSUPPORTED_FIELD', 'Unknown driver policy field.'));
    } else if (typeof driverPolicy[field] !== property.type) {
      violations.push(violation(path, 'INVALID_VALUE', 'Driver policy field must be a boolean.'));
    }
  }
  // Native default enablement would switch on tools that destructive-category filtering is meant to hold back.
  if (selection.toolDefaults?.enabled !== undefined && Object.hasOwn(driverPolicy, 'destructiveEnabled')) {
    violations.push(
      violation(
        pointer('plugins', selectionKey, 'toolDefaults', 'enabled'),
        'INVALID_COMBINATION',
        'toolDefaults.enabled cannot be combined with driverPolicy.destructiveEnabled.',
      ),
    );
  }
  return violations;
}

const spec: DriverPolicySpec = {
  capabilities,
  nativePluginId,
  isValidSelectionKey: (selectionKey) => CODEX_NATIVE_ID_PATTERN.test(nativePluginId(selectionKey)),
  checkSelection,
};

export const codexHostedRules = freezeDeep<PluginPolicyRules>({
  driverId: 'codex-hosted',
  harness: 'codex',
  capabilities,
  validatePolicies: (plugins, agentApprovers) => validateSelections(spec, plugins, agentApprovers),
  nativePluginId,
});
