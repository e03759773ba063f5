import { readFileSync } from 'node:fs';
import { parseOpenClawCatalog, type OpenClawCatalog } from '@occ/policy';

/**
 * OCC_OPENCLAW_CATALOG: a catalog file (the format of the committed openclaw-catalog.json) that
 * replaces the committed catalog, read and validated once at startup. Unset: the committed one.
 */
export function openclawCatalogFromEnv(env: NodeJS.ProcessEnv = process.env): OpenClawCatalog | undefined {
  const path = env.OCC_OPENCLAW_CATALOG;
  if (!path) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`OCC_OPENCLAW_CATALOG: cannot read ${path} as JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  return parseOpenClawCatalog(json);
}
