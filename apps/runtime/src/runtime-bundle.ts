import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { buildSync, version as esbuildVersion } from 'esbuild';

/**
 * The runtime as one JavaScript module (esbuild), beside its entry: a runtime process started from
 * it loads one file instead of its ≈ 150 TypeScript modules through tsx (measured on the 2-core
 * machine, to the process's first decision: 0.4 CPU-s instead of 1.9, and every deploy starts one
 * runtime). It lies in the entry's own directory so that what its modules find by `import.meta.url`
 * (the batch and gateway-read scripts, the pinned toolchain) is where it was. The workspace
 * packages it imports are bundled with it; every other package stays a package Node loads (their
 * CommonJS would not run inside an ES module bundle).
 *
 * Rebuilt whenever one of its inputs changed, or what else makes it (esbuild's version, the
 * packages left to Node): their SHA-256 digests, the bundle's own and those are recorded beside it
 * and compared at each call (a few milliseconds). Written through a temporary
 * file and a rename, so a process that reads it meanwhile gets one whole bundle or the other.
 */
export interface RuntimeBundle {
  /** The bundle to run with `node`. */
  path: string;
  /** Whether this call built it (its inputs changed, or there was none). */
  built: boolean;
}

const FORMAT = 1;

interface BundleRecord {
  format: number;
  /** What else makes the bundle: esbuild's version and the packages left to Node. */
  build: string;
  /** Input path (relative to the bundle's directory) → its SHA-256. */
  inputs: Record<string, string>;
  /** The bundle's own SHA-256: a bundle changed or cut short is built again. */
  output: string;
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Where the bundle of `entry` (a TypeScript file) lies, and its record. */
export function bundlePaths(entry: string): { bundle: string; record: string } {
  const name = basename(entry).replace(/\.[cm]?ts$/, '');
  return { bundle: join(dirname(entry), `.${name}.bundle.mjs`), record: join(dirname(entry), `.${name}.bundle.json`) };
}

/**
 * The bundle of `entry`, built first when missing or stale. `external`: the packages Node loads
 * itself. Throws when it cannot be built or written (a read-only checkout, a syntax error).
 */
export function ensureBundle(entry: string, external: readonly string[]): RuntimeBundle {
  const { bundle, record } = bundlePaths(entry);
  const dir = dirname(entry);
  const build = JSON.stringify({ esbuild: esbuildVersion, external: [...external].sort() });
  if (isFresh(dir, bundle, record, build)) return { path: bundle, built: false };
  const result = buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    external: [...external],
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error(`esbuild wrote nothing for ${entry}`);
  const inputs: Record<string, string> = {};
  // Metafile paths are relative to esbuild's working directory (this process's).
  for (const input of Object.keys(result.metafile.inputs)) inputs[relative(dir, resolve(input))] = sha256(resolve(input));
  const digest = createHash('sha256').update(output.contents).digest('hex');
  writeAtomically(bundle, output.contents);
  writeAtomically(record, `${JSON.stringify({ format: FORMAT, build, inputs, output: digest } satisfies BundleRecord)}\n`);
  return { path: bundle, built: true };
}

function isFresh(dir: string, bundle: string, record: string, build: string): boolean {
  try {
    const recorded = JSON.parse(readFileSync(record, 'utf8')) as BundleRecord;
    if (recorded.format !== FORMAT || recorded.build !== build || sha256(bundle) !== recorded.output) return false;
    return Object.entries(recorded.inputs).every(([input, digest]) => sha256(join(dir, input)) === digest);
  } catch {
    return false;
  }
}

function writeAtomically(path: string, contents: string | Uint8Array): void {
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(temporary, contents, { mode: 0o644 });
    renameSync(temporary, path);
  } finally {
    rmSync(temporary, { force: true });
  }
}
