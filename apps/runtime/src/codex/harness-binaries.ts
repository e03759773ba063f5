import { readFileSync, realpathSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isJsonObject } from '@occ/contracts';
import { containedIn } from '../contained-in.ts';

/**
 * Removes `@openai/codex`'s platform packages (its optional dependencies: the native `codex`
 * binary, 324 MB on linux-x64) from the harness plugin's install in the Agent's state, and
 * returns the names removed. The gateway never runs that binary — it talks to the revision's
 * own app-server over `appServer.url`, which runs from the pinned toolchain — but OpenClaw reads,
 * hashes and copies a plugin's whole dependency tree into TMPDIR at every gateway start (twice),
 * and a missing optional dependency is skipped there. OpenClaw refuses to install without the
 * platform package, so it goes after the install. Only a directory inside `stateDir` is touched.
 */
export function dropUnusedPlatformBinaries(installPath: string, stateDir: string): string[] {
  // <state>/npm/projects/<project>/node_modules/@openclaw/codex → that project's node_modules.
  const modules = dirname(dirname(installPath));
  if (!containedIn(stateDir, modules) || containedIn(modules, stateDir)) return [];
  const realModules = realpathSync(modules);
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(join(realModules, '@openai', 'codex', 'package.json'), 'utf8'));
  } catch {
    return [];
  }
  const optional = isJsonObject(manifest) && isJsonObject(manifest.optionalDependencies) ? Object.keys(manifest.optionalDependencies) : [];
  const removed: string[] = [];
  for (const name of optional) {
    // Names from a manifest: only `@openai/<one segment>` is ever joined onto the path.
    if (!/^@openai\/codex-[a-z0-9-]+$/.test(name)) continue;
    const dir = join(realModules, name);
    try {
      realpathSync(dir);
    } catch {
      continue;
    }
    rmSync(dir, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
