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
 * - `.env` in the working directory OpenClaw inherits from the runtime (the revision directory on
 *   `local`, `/var/lib/occ` in the image): OpenClaw loads it too, through a blocklist of its own
 *   (proxies, TLS, provider keys, its own switches); nothing of it is wanted either.
 */
export function removePlantedState(stateDir: string, workingDir: string): void {
  const extensions = join(stateDir, 'extensions');
  let names: string[] = [];
  try {
    names = readdirSync(extensions).sort();
  } catch {}
  for (const name of names) rmSync(join(extensions, name), { recursive: true, force: true });
  if (names.length > 0) logEvent('plugin.untracked.removed', { root: 'extensions', names });

  const candidates: Array<[name: string, path: string]> = [
    ['.env', join(stateDir, '.env')],
    ['hooks', join(stateDir, 'hooks')],
    ['cwd/.env', join(workingDir, '.env')],
  ];
  const planted = candidates.filter(([, path]) => lstatSync(path, { throwIfNoEntry: false }) !== undefined);
  for (const [, path] of planted) rmSync(path, { recursive: true, force: true });
  if (planted.length > 0) logEvent('state.planted.removed', { names: planted.map(([name]) => name) });
}
