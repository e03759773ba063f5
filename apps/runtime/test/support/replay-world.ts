// A temporary Agent state, revision directory and HOME for replaying recorded CLI answers, the
// catalog a recording was made with, and the runtime's log lines as a test reads them.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openclawCuratedCatalog, parseOpenClawCatalog, type OpenClawCatalog } from '@occ/policy';
import { vi } from 'vitest';
import { revisionConfigPath } from '../../src/revision-config.ts';
import { pinnedToolchain } from '../../src/toolchain.ts';
import type { CliRecording, CliWorld } from './recorded-commands.ts';

export function replayWorld(): CliWorld & { root: string; dispose(): void } {
  // Absolute even when TMPDIR is relative (a relative one nested worlds inside the repository).
  const root = mkdtempSync(join(resolve(tmpdir()), 'occ-runtime-replay-'));
  const world = {
    root,
    stateDir: join(root, 'state'),
    revisionDir: join(root, 'revision'),
    home: join(root, 'home'),
    configPath: revisionConfigPath(join(root, 'revision')),
    openclawPackageDir: join(pinnedToolchain().openclawDir, 'node_modules', 'openclaw'),
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
  for (const dir of [world.stateDir, world.revisionDir, world.home]) mkdirSync(dir, { mode: 0o700 });
  return world;
}

/** The curated catalog plus the fixture plugins as they were when `recording` was made. */
export function recordedCatalog(recording: CliRecording): OpenClawCatalog {
  const base = openclawCuratedCatalog();
  const plugins = [...base.plugins.filter((plugin) => !recording.catalogPlugins.some((added) => added.id === plugin.id)), ...recording.catalogPlugins].sort((a, b) =>
    a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  return parseOpenClawCatalog(JSON.parse(JSON.stringify({ runtime: base.runtime, plugins })));
}

export interface RuntimeLogEvent {
  event: string;
  [field: string]: unknown;
}

/** Collects the runtime's own JSON log lines written to stderr (they are not printed meanwhile). */
export function captureRuntimeLog(): { events(): RuntimeLogEvent[]; named(event: string): RuntimeLogEvent[]; text(): string; restore(): void } {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  });
  const events = () =>
    lines
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('{') && line.includes('"source":"occ-runtime"'))
      .map((line) => JSON.parse(line) as RuntimeLogEvent);
  return { events, named: (event) => events().filter((found) => found.event === event), text: () => lines.join(''), restore: () => spy.mockRestore() };
}
