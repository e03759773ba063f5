// Builds the console into dist/ (esbuild): content-hashed assets under dist/assets and an
// index.html that names them — no inline script or style, so the controller's CSP can forbid
// both. Run by `npm ci` (postinstall) and by the browser tests' setup.
import { build } from 'esbuild';
import { chmodSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const staging = mkdtempSync(join(root, '.dist-'));
try {
  const result = await build({
    absWorkingDir: root,
    entryPoints: { console: join(root, 'src/main.tsx') },
    outdir: join(staging, 'assets'),
    bundle: true,
    minify: true,
    sourcemap: false,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
  const scripts = outputs.filter((name) => name.endsWith('.js'));
  const styles = outputs.filter((name) => name.endsWith('.css'));
  if (scripts.length !== 1) throw new Error(`Expected one script bundle, got ${scripts.join(', ')}`);
  const html = readFileSync(join(root, 'index.html'), 'utf8')
    .replace('<!-- occ:styles -->', styles.map((name) => `<link rel="stylesheet" href="/assets/${name}" />`).join('\n    '))
    .replace('<!-- occ:scripts -->', scripts.map((name) => `<script type="module" src="/assets/${name}"></script>`).join('\n    '));
  writeFileSync(join(staging, 'index.html'), html);
  // Swap in whole: a controller loading the directory sees the old build or the new one.
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  chmodSync(staging, 0o755);
  renameSync(staging, join(root, 'dist'));
  console.log(`console built: ${outputs.map((name) => relative(root, join(root, 'dist/assets', name))).join(', ')}`);
} finally {
  rmSync(staging, { recursive: true, force: true });
}
