/**
 * Generates packages/policy/src/openclaw/official-external-plugins.json: the ids of the official
 * plugins the pinned OpenClaw does not ship but installs by itself, from npm or ClawHub, when it
 * finds them "configured" (a provider's API-key variable in the gateway's environment, a
 * configured channel or provider). The translation turns each one nobody selected off
 * (docs/security.md, "The gateway installs nothing by itself"). Read from the pinned package's
 * own bundled catalog, no network; scripts/check and packages/policy's test compare it.
 *
 *   node --import tsx scripts/generate-openclaw-external-plugins.ts
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isJsonObject } from '../packages/contracts/src/json.ts';

const REPO_ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
export const EXTERNAL_PLUGINS_PATH = join(REPO_ROOT, 'packages/policy/src/openclaw/official-external-plugins.json');
const OPENCLAW_DIST = join(REPO_ROOT, 'apps/runtime/openclaw/node_modules/openclaw/dist');
const EXPORT_NAME = 'BUNDLED_OFFICIAL_EXTERNAL_PLUGIN_CATALOG_ENTRIES';

/** The plugin ids of the pinned OpenClaw's official external catalog, sorted; throws when the package no longer has it. */
export async function readOfficialExternalPluginIds(distDir = OPENCLAW_DIST): Promise<string[]> {
  // The chunk's file name carries a build hash; its named export is stable.
  const candidates = readdirSync(distDir).filter((name) => name.startsWith('official-external-plugin-bundled-catalogs-') && name.endsWith('.mjs'));
  for (const name of candidates) {
    const module = (await import(pathToFileURL(join(distDir, name)).href)) as Record<string, unknown>;
    const entries = module[EXPORT_NAME];
    if (!Array.isArray(entries)) continue;
    const ids = entries.map((entry) => {
      const openclaw = isJsonObject(entry) && isJsonObject(entry.openclaw) ? entry.openclaw : {};
      const owner = isJsonObject(openclaw.plugin) ? openclaw.plugin : isJsonObject(openclaw.channel) ? openclaw.channel : {};
      if (typeof owner.id !== 'string' || owner.id === '') throw new Error(`an official external catalog entry has no plugin id: ${JSON.stringify(entry).slice(0, 200)}`);
      return owner.id;
    });
    return [...new Set(ids)].sort();
  }
  throw new Error(`the pinned OpenClaw has no ${EXPORT_NAME} in ${distDir}: re-check how it installs missing configured plugins`);
}

export function renderExternalPlugins(ids: readonly string[]): string {
  return `${JSON.stringify({ pluginIds: ids }, null, 2)}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(EXTERNAL_PLUGINS_PATH, renderExternalPlugins(await readOfficialExternalPluginIds()));
}
