import type { PluginMap, PluginSelection } from '@occ/contracts';

/**
 * The picker's selections in the API's own shape (the Agent's `plugins` map), so saving needs no
 * translation. Deselected entries are remembered, so re-selecting one brings back the tool
 * policies the user (or the saved Agent) had set instead of silently resetting them.
 */
export interface Selections {
  readonly map: PluginMap;
  readonly remembered: ReadonlyMap<string, PluginSelection>;
}

export function initialSelections(map: PluginMap = {}): Selections {
  return { map: { ...map }, remembered: new Map() };
}

export function select(selections: Selections, id: string): Selections {
  const previous = selections.map[id] ?? selections.remembered.get(id);
  const remembered = new Map(selections.remembered);
  remembered.delete(id);
  return { map: { ...selections.map, [id]: previous ? { ...previous, enabled: true } : { enabled: true } }, remembered };
}

export function deselect(selections: Selections, id: string): Selections {
  const current = selections.map[id];
  if (current === undefined) return selections;
  const { [id]: _removed, ...map } = selections.map;
  return { map, remembered: new Map(selections.remembered).set(id, current) };
}
