import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';
import { logEvent } from '../log.ts';

// Plugin skills across the two Codex containers ([S-4]): the app-server runtime linked them into
// its own `<assets>/plugin-skills` (skills.ts), which the gateway's container cannot see. It serves
// them as one bounded bundle on its status server; the gateway runtime unpacks the files into its
// own `<assets>/plugin-skills` and links OpenClaw's home to it, as one process does on `local`.
// Only the skills' own files travel: no CODEX_HOME, no credential, no link.

const MAX_BUNDLE_BYTES = 16 * 1024 * 1024;
const MAX_FILES = 2_000;
const SAFE_PATH = /^(?:[A-Za-z0-9][A-Za-z0-9._@-]{0,199}\/)*[A-Za-z0-9._@-]{1,200}$/;

interface BundledFile {
  path: string;
  executable: boolean;
  content: string;
}

/** `<assets>/plugin-skills` as a bundle: each `<plugin>/<skill>` link followed once, the regular files below it (links inside are skipped). */
export function bundleSkills(assetsDir: string): Buffer {
  const root = join(assetsDir, 'plugin-skills');
  const files: BundledFile[] = [];
  let bytes = 0;
  const add = (path: string, absolute: string) => {
    const size = statSync(absolute).size;
    if (files.length >= MAX_FILES || bytes + size > MAX_BUNDLE_BYTES) {
      logEvent('codex.skill_skipped', { reason: 'bundle-size', path });
      return;
    }
    bytes += size;
    files.push({ path, executable: (statSync(absolute).mode & 0o111) !== 0, content: readFileSync(absolute).toString('base64') });
  };
  const walk = (dir: string, relative: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(join(dir, entry.name), path);
      else if (entry.isFile()) add(path, join(dir, entry.name));
    }
  };
  for (const plugin of safeEntries(root)) {
    for (const skill of safeEntries(join(root, plugin))) {
      const linked = join(root, plugin, skill);
      if (statSync(linked).isDirectory()) walk(linked, `${plugin}/${skill}`);
    }
  }
  return Buffer.from(JSON.stringify({ files }));
}

function safeEntries(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => SAFE_PATH.test(name) && !name.includes('/'));
  } catch {
    return [];
  }
}

/**
 * Writes a bundle's files under `<assets>/plugin-skills` (rebuilt from nothing) and links
 * `<openclawHome>/plugin-skills` to it. A path that is not a plain relative one is refused, so a
 * bundle cannot write outside its folder. Returns how many files were written.
 */
export function unpackSkills(bundle: unknown, input: { assetsDir: string; openclawHome: string }): number {
  const root = join(input.assetsDir, 'plugin-skills');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const files = isBundle(bundle) ? bundle.files : [];
  let written = 0;
  for (const file of files) {
    if (!SAFE_PATH.test(file.path) || normalize(file.path) !== file.path || file.path.split('/').includes('..')) continue;
    const target = join(root, ...file.path.split('/'));
    if (!target.startsWith(root + sep)) continue;
    mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
    writeFileSync(target, Buffer.from(file.content, 'base64'), { mode: file.executable ? 0o700 : 0o600 });
    written++;
  }
  const published = join(input.openclawHome, 'plugin-skills');
  mkdirSync(input.openclawHome, { recursive: true, mode: 0o700 });
  if (exists(published)) rmSync(published, { recursive: true, force: true });
  symlinkSync(root, published, 'dir');
  return written;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function isBundle(value: unknown): value is { files: BundledFile[] } {
  if (typeof value !== 'object' || value === null || !Array.isArray((value as { files?: unknown }).files)) return false;
  return (value as { files: unknown[] }).files.every(
    (file) =>
      typeof file === 'object' &&
      file !== null &&
      typeof (file as BundledFile).path === 'string' &&
      typeof (file as BundledFile).content === 'string' &&
      typeof (file as BundledFile).executable === 'boolean',
  );
}
