import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Builds the console once per run, before the browser tests start `occ up`: the controller reads
 * apps/console/dist at startup, so the tests drive today's sources, not an older `npm ci` build.
 */
export default function buildConsole(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL('../../scripts/build-console.mjs', import.meta.url))], { stdio: 'inherit' });
}
