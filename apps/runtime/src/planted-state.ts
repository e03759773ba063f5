import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { logEvent } from './log.ts';

/**
 * Removes what OpenClaw would load from the Agent's state although the runtime never puts it
 * there, before the first OpenClaw process of every start (the runtime's, and a Codex gateway's
 * restart on a new peer): whatever sits there was put by someone else, most likely the agent
 * through its own tools, and must not outlive a restart (docs/security.md). Symlinks are
 * removed, never followed.
 *
 * - `<stateDir>/extensions/*`: OpenClaw's global plugin root. It loads every plugin found there,
 *   enabled, even without an install record ("untracked global"); npm installs (the Codex
 *   harness's too) go to `<stateDir>/npm`.
 * - `<stateDir>/.env`: every OpenClaw process (the CLI commands and the gateway) adds the
 *   variables it names to its own environment — a proxy, `NODE_TLS_REJECT_UNAUTHORIZED`, a
 *   provider's key, OpenClaw's own switches — when the runtime's environment does not set them.
 * - `<stateDir>/hooks`: OpenClaw's managed hook directory (`openclaw hooks install`, never run by
 *   the runtime): hook code the gateway would load.
 */
export function removePlantedState(stateDir: string): void {
  const extensions = join(stateDir, 'extensions');
  let names: string[] = [];
  try {
    names = readdirSync(extensions).sort();
  } catch {}
  for (const name of names) rmSync(join(extensions, name), { recursive: true, force: true });
  if (names.length > 0) logEvent('plugin.untracked.removed', { root: 'extensions', names });

  const files = ['.env', 'hooks'].filter((name) => lstatSync(join(stateDir, name), { throwIfNoEntry: false }) !== undefined);
  for (const name of files) rmSync(join(stateDir, name), { recursive: true, force: true });
  if (files.length > 0) logEvent('state.planted.removed', { names: files });
}
