// The last step of `npm ci` (the root package's postinstall, which npm runs after every
// workspace's): links the pinned Node 24 that apps/runtime/scripts/install-openclaw.mjs has just
// installed (apps/runtime/node24) as node_modules/.bin/node. npm puts node_modules/.bin first on
// the PATH of every npm script and `npx` command, so `npm start`, `npm test`, `npx vitest` and
// `npx occ` run the controller, the workers, the CLI, vitest and every process a test spawns with
// `process.execPath` on that maintained LTS; the machine's own Node (20 is enough) only runs
// `npm ci`. test/maintained-node.test.ts proves it.
import { existsSync, mkdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repository = dirname(dirname(fileURLToPath(import.meta.url)));
// apps/runtime/src/toolchain.ts's `nodeBinary` (plain Node runs this, so it cannot import
// TypeScript); test/maintained-node.test.ts fails if the two ever name different files.
const pinnedNode = join(repository, 'apps', 'runtime', 'node24', 'node_modules', 'node', 'bin', 'node');
const link = join(repository, 'node_modules', '.bin', 'node');

if (!existsSync(pinnedNode)) {
  console.error(`The pinned Node is missing (${relative(repository, pinnedNode)}): apps/runtime's postinstall installs it; run npm ci again.`);
  process.exit(1);
}
// Relative, so the checkout can move.
const target = relative(dirname(link), pinnedNode);
const current = (() => {
  try {
    return readlinkSync(link);
  } catch {
    return null;
  }
})();
if (current !== target) {
  rmSync(link, { force: true });
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(target, link);
}
