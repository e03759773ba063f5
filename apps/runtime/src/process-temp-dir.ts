import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A temporary directory of one OpenClaw process, under the runtime's own (`TMPDIR`), removed once
 * the process has exited. OpenClaw copies a plugin's whole package into the temporary directory of
 * every process that loads it and never removes the copy: for the Codex harness plugin that is
 * ≈ 350 MB per CLI command, which filled a container's 2 GiB private area at its first turn.
 */
export function processTempDir(env: Readonly<Record<string, string>>): { env: { TMPDIR: string }; remove(): void } {
  const dir = mkdtempSync(join(env.TMPDIR ?? tmpdir(), 'openclaw-'));
  return { env: { TMPDIR: dir }, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
