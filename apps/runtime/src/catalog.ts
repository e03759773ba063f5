import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openclawCuratedCatalog, parseOpenClawCatalog, type OpenClawCatalog } from '@occ/policy';
import { StartupFailure } from './failure.ts';
import type { PinnedToolchain } from './toolchain.ts';

/**
 * The committed curated catalog, or the file OCC_RUNTIME_CATALOG names (tests, private
 * catalogs). Either must describe the pinned runtime: a catalog read from another OpenClaw
 * release would promise plugins and tools this one may not have.
 */
export function loadCatalog(path: string | null, toolchain: PinnedToolchain): OpenClawCatalog {
  let catalog: OpenClawCatalog;
  if (path === null) catalog = openclawCuratedCatalog();
  else {
    try {
      catalog = parseOpenClawCatalog(JSON.parse(readFileSync(path, 'utf8')));
    } catch {
      throw new StartupFailure('RUNTIME_CATALOG_INVALID', 'The OpenClaw catalog named by OCC_RUNTIME_CATALOG cannot be read or is malformed.');
    }
  }
  const pinned = (JSON.parse(readFileSync(join(toolchain.openclawDir, 'node_modules', 'openclaw', 'package.json'), 'utf8')) as { version?: unknown }).version;
  if (catalog.runtime.version !== pinned) {
    throw new StartupFailure('RUNTIME_CATALOG_INVALID', 'The OpenClaw catalog was read from another OpenClaw release than the pinned runtime.');
  }
  return catalog;
}
