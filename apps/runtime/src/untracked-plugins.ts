import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { logEvent } from './log.ts';

/**
 * Empties OpenClaw's global plugin root, `<stateDir>/extensions`, before anything else runs.
 * OpenClaw loads every plugin found there, enabled, even without an install record ("untracked
 * global"), and the runtime never installs there (npm installs go to `<stateDir>/npm`; the Codex
 * path links its plugin there afresh at each start). Whatever sits there was therefore put by
 * someone else, most likely the agent through its own tools, and must not outlive a restart
 * (docs/security.md). Symlinks are removed, never followed. Returns the names removed.
 */
export function removeUntrackedGlobalPlugins(stateDir: string): string[] {
  const root = join(stateDir, 'extensions');
  let names: string[];
  try {
    names = readdirSync(root).sort();
  } catch {
    return [];
  }
  for (const name of names) rmSync(join(root, name), { recursive: true, force: true });
  if (names.length > 0) logEvent('plugin.untracked.removed', { root: 'extensions', names });
  return names;
}
