import type { PluginMap, PolicyViolation } from '@occ/contracts';
import { pointer } from '../json-pointer.ts';
import { OPENCLAW_SELECTION_PREFIX } from '../openclaw-curated.ts';
import { stripPrefix, violation } from '../shared-rules.ts';
import type { OpenClawCatalog, OpenClawCatalogPlugin } from './catalog.ts';

/**
 * The one rule for "does the catalog offer this selection": its key, without the `openclaw:`
 * prefix, is a catalog id. The runtime's plan (and so the deploy's dry run) and the save-time
 * check both use it, so an Agent is refused at save for exactly what its startup would refuse.
 */
export function openclawCatalogLookup(catalog: OpenClawCatalog): (selectionKey: string) => OpenClawCatalogPlugin | undefined {
  const byId = new Map(catalog.plugins.map((plugin) => [plugin.id, plugin]));
  return (selectionKey) => byId.get(stripPrefix(selectionKey, OPENCLAW_SELECTION_PREFIX));
}

export function notInOpenClawCatalog(selectionKey: string): PolicyViolation {
  return violation(pointer('plugins', selectionKey), 'UNSUPPORTED_VALUE', 'The pinned OpenClaw runtime has no such plugin in its catalog.');
}

/** One violation per selection the catalog does not offer, keys sorted (as the plan reports them). */
export function uncataloguedOpenClawSelections(catalog: OpenClawCatalog, selections: PluginMap): PolicyViolation[] {
  const lookup = openclawCatalogLookup(catalog);
  return Object.keys(selections)
    .sort()
    .filter((key) => lookup(key) === undefined)
    .map(notInOpenClawCatalog);
}
