import type { Approver, PluginMap, PluginPolicyCapabilities, PluginSelection, PolicyViolation, PolicyViolationCode, ToolDefaults, ToolPolicy } from '@occ/contracts';
import { pointer } from './json-pointer.ts';

/** The driver-specific half of a PluginPolicyRules; the shared half is driven by `capabilities`. */
export interface DriverPolicySpec {
  readonly capabilities: PluginPolicyCapabilities;
  nativePluginId(selectionKey: string): string;
  isValidSelectionKey(selectionKey: string): boolean;
  checkSelection(selectionKey: string, selection: PluginSelection): PolicyViolation[];
}

type ControlScope = 'toolDefaults' | 'tools';

export function violation(path: string, code: PolicyViolationCode, message: string): PolicyViolation {
  return { path, code, message };
}

export function stripPrefix(selectionKey: string, prefix: string): string {
  return selectionKey.startsWith(prefix) ? selectionKey.slice(prefix.length) : selectionKey;
}

/** Runs every shared rule, then the driver's own; keys are visited sorted so output never depends on JSON key order. */
export function validateSelections(spec: DriverPolicySpec, plugins: PluginMap, agentApprovers?: readonly Approver[] | null): PolicyViolation[] {
  const { capabilities } = spec;
  const violations: PolicyViolation[] = [];
  if (agentApprovers != null) {
    violations.push(...checkApproverScope(agentApprovers, capabilities.approvers.agent, pointer('pluginApprovers')));
  }
  const keys = Object.keys(plugins).sort();
  for (const key of keys) {
    const selection = plugins[key]!;
    if (!spec.isValidSelectionKey(key)) {
      violations.push(violation(pointer('plugins', key), 'INVALID_VALUE', 'Plugin id is not valid for this driver.'));
    }
    violations.push(...checkSelectionControls(key, selection, capabilities), ...spec.checkSelection(key, selection));
  }
  violations.push(
    ...checkAliasedPlugins(
      keys.filter((key) => spec.isValidSelectionKey(key)),
      spec.nativePluginId,
    ),
  );
  return violations;
}

/** Flags every approver whose channel and id already appeared earlier in the same list. */
export function checkDuplicateApprovers(approvers: readonly Approver[], listPath: string): PolicyViolation[] {
  const seen = new Set<string>();
  const violations: PolicyViolation[] = [];
  approvers.forEach((approver, index) => {
    const identity = JSON.stringify([approver.channel, approver.id]);
    if (seen.has(identity)) {
      violations.push(violation(`${listPath}/${index}`, 'DUPLICATE_VALUE', 'Approver is listed more than once.'));
    }
    seen.add(identity);
  });
  return violations;
}

/** `sortedKeys` must be sorted: the first key naming a native plugin wins, every later alias is flagged. */
export function checkAliasedPlugins(sortedKeys: readonly string[], nativePluginId: (selectionKey: string) => string): PolicyViolation[] {
  const seen = new Set<string>();
  const violations: PolicyViolation[] = [];
  for (const key of sortedKeys) {
    const nativeId = nativePluginId(key);
    if (seen.has(nativeId)) {
      violations.push(violation(pointer('plugins', key), 'DUPLICATE_PLUGIN', 'Another selection names the same native plugin.'));
    }
    seen.add(nativeId);
  }
  return violations;
}

function checkSelectionControls(key: string, selection: PluginSelection, capabilities: PluginPolicyCapabilities): PolicyViolation[] {
  const violations: PolicyViolation[] = [];
  if (selection.approvers !== undefined) {
    const path = pointer('plugins', key, 'approvers');
    violations.push(...checkApproverScope(selection.approvers, capabilities.approvers.plugin, path));
  }
  if (selection.toolDefaults !== undefined) {
    violations.push(...checkControls(selection.toolDefaults, 'toolDefaults', capabilities, ['plugins', key, 'toolDefaults']));
  }
  const tools = selection.tools ?? {};
  for (const toolId of Object.keys(tools).sort()) {
    const tool = tools[toolId]!;
    violations.push(...checkControls(tool, 'tools', capabilities, ['plugins', key, 'tools', toolId]));
    if (tool.approvers !== undefined) {
      const path = pointer('plugins', key, 'tools', toolId, 'approvers');
      violations.push(...checkApproverScope(tool.approvers, capabilities.approvers.tool, path));
    }
  }
  return violations;
}

function checkApproverScope(approvers: readonly Approver[], supported: boolean, listPath: string): PolicyViolation[] {
  if (!supported) return [violation(listPath, 'UNSUPPORTED_FIELD', 'Approvers are not supported at this scope.')];
  return checkDuplicateApprovers(approvers, listPath);
}

function checkControls(controls: ToolDefaults | ToolPolicy, scope: ControlScope, capabilities: PluginPolicyCapabilities, segments: readonly string[]): PolicyViolation[] {
  const violations: PolicyViolation[] = [];
  if (controls.approval !== undefined && !capabilities.approval[scope].includes(controls.approval)) {
    violations.push(violation(pointer(...segments, 'approval'), 'UNSUPPORTED_VALUE', 'Approval mode is not supported at this scope.'));
  }
  if (controls.reviewer !== undefined) {
    const allowed = capabilities.reviewer[scope];
    const path = pointer(...segments, 'reviewer');
    if (allowed.length === 0) {
      violations.push(violation(path, 'UNSUPPORTED_FIELD', 'Reviewer is not supported at this scope.'));
    } else if (!allowed.includes(controls.reviewer)) {
      violations.push(violation(path, 'UNSUPPORTED_VALUE', 'Reviewer is not supported at this scope.'));
    }
  }
  return violations;
}

/** Two rules can flag the same field for the same reason (an alias, say); report it once. */
export function dedupeViolations(
  violations: readonly PolicyViolation[],
  identityOf: (found: PolicyViolation) => string = ({ path, code }) => `${code} ${path}`,
): PolicyViolation[] {
  const seen = new Set<string>();
  return violations.filter((found) => {
    const identity = identityOf(found);
    if (seen.has(identity)) return false;
    seen.add(identity);
    return true;
  });
}

/** Capabilities are shared module state that the rules read; freezing keeps a consumer from changing them. */
export function freezeDeep<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) freezeDeep(child);
  }
  return value;
}
