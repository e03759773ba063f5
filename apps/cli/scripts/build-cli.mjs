// Bundles the `occ` command into dist/ (esbuild, from tsx's own dependency) so a command starts
// in a fraction of the time loading its TypeScript through tsx takes. Run by `npm ci`
// (postinstall) and by the test setup; bin/occ.mjs falls back to the sources when dist/ is
// missing or older than them.
import { build } from 'esbuild';
import { chmodSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const staging = mkdtempSync(join(root, '.dist-'));
try {
  await build({
    entryPoints: [join(root, 'src/main.ts')],
    outdir: staging,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // The server commands (`up`, `worker`) load the controller's TypeScript through tsx, on demand.
    external: ['@occ/controller', 'tsx', 'tsx/*'],
    // CommonJS dependencies bundled into ESM still call require() for Node's built-ins.
    banner: { js: "import { createRequire as __occRequire } from 'node:module'; const require = __occRequire(import.meta.url);" },
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    logLevel: 'warning',
  });
  // Swap in whole: a concurrent `occ` sees the old bundle, the new one, or none (then the sources).
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  chmodSync(staging, 0o755);
  renameSync(staging, join(root, 'dist'));
} finally {
  rmSync(staging, { recursive: true, force: true });
}
