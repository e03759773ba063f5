import type { PluginMap, PluginSelection } from '@occ/contracts';
import { CliError, EXIT } from '../exit-codes.ts';

/** What `occ agents edit` changes in an Agent's plugin map. */
export interface PluginEdits {
  /** The selection keys the other edits apply to. */
  plugins: string[];
  enable?: boolean;
  /** `NAME=on|off` per tool. */
  tools: string[];
  /** `on|off`: the selection's tool default. */
  toolDefault?: string;
  remove: string[];
}

function onOff(value: string, what: string): boolean {
  if (value === 'on' || value === 'true') return true;
  if (value === 'off' || value === 'false') return false;
  throw new CliError(`${what} must be on or off (got ${JSON.stringify(value)})`, EXIT.USAGE);
}

/**
 * The plugin map after the edits (a new object; the input is not changed). A plugin named for the
 * first time is added as a selection, enabled unless --disable says otherwise. Tool overrides need
 * exactly one --plugin: a tool id belongs to one plugin.
 */
export function applyPluginEdits(current: PluginMap, edits: PluginEdits): PluginMap {
  const next: PluginMap = structuredClone(current);
  for (const key of edits.remove) {
    if (!(key in next)) throw new CliError(`The Agent has no plugin selection ${key}`, EXIT.NOT_FOUND);
    delete next[key];
  }
  if ((edits.tools.length > 0 || edits.toolDefault !== undefined) && edits.plugins.length !== 1) {
    throw new CliError('--tool and --tool-default apply to one plugin: name exactly one with --plugin', EXIT.USAGE);
  }
  for (const key of edits.plugins) {
    const selection: PluginSelection = next[key] ?? { enabled: true };
    if (edits.enable !== undefined) selection.enabled = edits.enable;
    if (edits.toolDefault !== undefined) selection.toolDefaults = { ...selection.toolDefaults, enabled: onOff(edits.toolDefault, '--tool-default') };
    for (const assignment of edits.tools) {
      const split = assignment.lastIndexOf('=');
      if (split <= 0) throw new CliError(`--tool takes NAME=on|off (got ${JSON.stringify(assignment)})`, EXIT.USAGE);
      const tool = assignment.slice(0, split);
      selection.tools = { ...selection.tools, [tool]: { ...selection.tools?.[tool], enabled: onOff(assignment.slice(split + 1), `--tool ${tool}`) } };
    }
    next[key] = selection;
  }
  return next;
}
