#!/usr/bin/env node
// The `occ` command: the bundle in dist/ (built by `npm ci`) when it is newer than every source
// it was built from, else the TypeScript sources through tsx (slower to start, never stale).
import { readdirSync, statSync } from 'node:fs';

const dist = new URL('../dist/main.js', import.meta.url);
const sources = [new URL('../src/', import.meta.url), new URL('../../../packages/contracts/src/', import.meta.url)];

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = new URL(entry.name + (entry.isDirectory() ? '/' : ''), dir);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function bundleIsFresh() {
  try {
    const built = statSync(dist).mtimeMs;
    return sources.every((dir) => newestMtime(dir) <= built);
  } catch {
    return false;
  }
}

let main;
if (bundleIsFresh() && !process.env.OCC_CLI_FROM_SOURCE) {
  ({ main } = await import(dist.href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  globalThis[Symbol.for('occ.tsx-registered')] = true;
  ({ main } = await import('../src/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
