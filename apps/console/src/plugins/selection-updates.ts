import type { Approver, ApprovalMode, PluginSelection, Reviewer, ToolDefaults, ToolPolicy } from '@occ/contracts';

/**
 * Immutable edits of one plugin selection. `toolDefaults` and each tool policy must have at
 * least one field (the schema's minProperties), so an edit that clears the last field removes
 * the object instead of saving `{}`; likewise an empty `tools` map is dropped.
 */

/** A select's "no override" choice: the field is omitted and the wider scope applies. */
export const INHERIT = '';

export type TriState = typeof INHERIT | 'on' | 'off';

export function triStateOf(value: boolean | undefined): TriState {
  return value === undefined ? INHERIT : value ? 'on' : 'off';
}

export function booleanOf(value: string): boolean | undefined {
  return value === 'on' ? true : value === 'off' ? false : undefined;
}

export interface ControlPatch {
  enabled?: boolean | undefined;
  approval?: ApprovalMode | undefined;
  reviewer?: Reviewer | undefined;
  approvers?: Approver[] | undefined;
}

function applyPatch<T extends object>(current: T | undefined, patch: ControlPatch): T | undefined {
  const next: Record<string, unknown> = { ...current };
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) delete next[field];
    else next[field] = value;
  }
  return Object.keys(next).length === 0 ? undefined : (next as T);
}

function withOptional<K extends keyof PluginSelection>(selection: PluginSelection, field: K, value: PluginSelection[K] | undefined): PluginSelection {
  const next = { ...selection };
  if (value === undefined) delete next[field];
  else next[field] = value;
  return next;
}

export function setEnabled(selection: PluginSelection, enabled: boolean): PluginSelection {
  return { ...selection, enabled };
}

export function patchToolDefaults(selection: PluginSelection, patch: Omit<ControlPatch, 'approvers'>): PluginSelection {
  return withOptional(selection, 'toolDefaults', applyPatch<ToolDefaults>(selection.toolDefaults, patch));
}

export function patchTool(selection: PluginSelection, toolId: string, patch: ControlPatch): PluginSelection {
  const tools = { ...selection.tools };
  const policy = applyPatch<ToolPolicy>(tools[toolId], patch);
  if (policy === undefined) delete tools[toolId];
  else tools[toolId] = policy;
  return withOptional(selection, 'tools', Object.keys(tools).length === 0 ? undefined : tools);
}

/** `undefined`: inherit from the wider scope; `[]`: nobody may approve at this scope. */
export function setPluginApprovers(selection: PluginSelection, approvers: Approver[] | undefined): PluginSelection {
  return withOptional(selection, 'approvers', approvers);
}
