// `npm run catalog:check`: the committed curated catalog regenerates byte for byte from the pinned
// openclaw CLI and the PUBLIC npm registry. Kept out of `npm test` on purpose: it depends on the
// registry's answers (a registry outage or a republished tarball is not a regression of OCC) and
// takes minutes; run it when the pinned openclaw or the catalog changes (docs/operations.md).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CATALOG_PATH, REPO_ROOT } from '../generate-openclaw-catalog.ts';

const run = promisify(execFile);

describe('the committed curated OpenClaw catalog, against its sources', () => {
  it('[D-15] regenerates byte for byte from the pinned CLI and the npm registry', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'occ-catalog-check-'));
    try {
      const out = join(dir, 'catalog.json');
      await run(process.execPath, ['--import', 'tsx', 'scripts/generate-openclaw-catalog.ts', '--out', out], { cwd: REPO_ROOT, timeout: 240_000 });
      expect(await readFile(out, 'utf8')).toBe(await readFile(CATALOG_PATH, 'utf8'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
