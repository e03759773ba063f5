import type { Approver, PluginMap, PluginPolicyCapabilities, ToolDefaults, ToolPolicy } from '@occ/contracts';
import { ApiError } from '@occ/contracts/client';
import { pluginPointer, pointer } from './plugin-pointer.ts';

/**
 * The console's check of selections against the harness's capabilities
 * (`GET …/plugins/capabilities`), run before saving so a refused control is marked without a
 * round trip. It covers the capability-driven rules only (approval modes, reviewers and approver
 * scopes, the Agent-wide `pluginApprovers` included); driver-specific rules (key syntax, aliases,
 * driverPolicy) stay the server's, whose answer is shown the same way.
 */
export interface Refusal {
  path: string;
  code: 'UNSUPPORTED_VALUE' | 'UNSUPPORTED_FIELD' | 'DUPLICATE_VALUE';
}

export function checkAgainstCapabilities(plugins: PluginMap, capabilities: PluginPolicyCapabilities | null, agentApprovers: readonly Approver[] | null = null): Refusal[] {
  const keys = Object.keys(plugins).sort();
  // No PluginDriver for this harness: any selection at all is refused by the server (which does
  // not check the Agent-wide approvers then, so neither does this).
  if (capabilities === null) return keys.map((key) => ({ path: pluginPointer(key), code: 'UNSUPPORTED_FIELD' }));
  const refusals: Refusal[] = [];
  // The Agent-wide list first, as the server orders it; null (none configured) has nothing to check.
  if (agentApprovers !== null) refusals.push(...checkApprovers(agentApprovers, capabilities.approvers.agent, pointer('pluginApprovers')));
  for (const key of keys) {
    const selection = plugins[key]!;
    if (selection.approvers !== undefined) refusals.push(...checkApprovers(selection.approvers, capabilities.approvers.plugin, pluginPointer(key, 'approvers')));
    if (selection.toolDefaults !== undefined)
      refusals.push(...checkControls(selection.toolDefaults, capabilities, 'toolDefaults', (field) => pluginPointer(key, 'toolDefaults', field)));
    for (const toolId of Object.keys(selection.tools ?? {}).sort()) {
      const tool = selection.tools![toolId]!;
      refusals.push(...checkControls(tool, capabilities, 'tools', (field) => pluginPointer(key, 'tools', toolId, field)));
      if (tool.approvers !== undefined) refusals.push(...checkApprovers(tool.approvers, capabilities.approvers.tool, pluginPointer(key, 'tools', toolId, 'approvers')));
    }
  }
  return refusals;
}

function checkControls(controls: ToolDefaults | ToolPolicy, capabilities: PluginPolicyCapabilities, scope: 'toolDefaults' | 'tools', at: (field: string) => string): Refusal[] {
  const refusals: Refusal[] = [];
  if (controls.approval !== undefined && !capabilities.approval[scope].includes(controls.approval)) refusals.push({ path: at('approval'), code: 'UNSUPPORTED_VALUE' });
  if (controls.reviewer !== undefined) {
    const allowed = capabilities.reviewer[scope];
    if (allowed.length === 0) refusals.push({ path: at('reviewer'), code: 'UNSUPPORTED_FIELD' });
    else if (!allowed.includes(controls.reviewer)) refusals.push({ path: at('reviewer'), code: 'UNSUPPORTED_VALUE' });
  }
  return refusals;
}

function checkApprovers(approvers: readonly Approver[], supported: boolean, listPath: string): Refusal[] {
  if (!supported) return [{ path: listPath, code: 'UNSUPPORTED_FIELD' }];
  const seen = new Set<string>();
  const refusals: Refusal[] = [];
  approvers.forEach((approver, index) => {
    const identity = JSON.stringify([approver.channel, approver.id]);
    if (seen.has(identity)) refusals.push({ path: `${listPath}/${index}`, code: 'DUPLICATE_VALUE' });
    seen.add(identity);
  });
  return refusals;
}

/**
 * The refusals in the shape of the server's validation error, so `ErrorMessage` and `errorsAt`
 * show them exactly like a server answer (status 0: this never left the browser, so it has no
 * request id).
 */
export class CapabilityRefusal extends ApiError {
  constructor(refusals: readonly Refusal[]) {
    super(0, 'REFUSED_BY_CAPABILITIES', "Not saved: this harness's plugin driver does not support some of these settings (checked before saving).", refusals);
    this.name = 'CapabilityRefusal';
  }
}
