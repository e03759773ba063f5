import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Rebuilds the `occ` bundle before the tests that spawn `occ`, so they run today's sources at the
 * bundle's start-up speed (bin/occ.mjs would fall back to the slower sources if it were stale).
 */
export default function buildCliBundle(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL('../../apps/cli/scripts/build-cli.mjs', import.meta.url))], { stdio: 'inherit' });
}
