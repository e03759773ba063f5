// The runtime image the docker tests run, made by the first test file that needs it: the engine
// must answer, then the local base (no pull) and the image of this tree are built unless already
// there with the same inputs (both cached by a content label). Built inside a test file, not a
// global setup, so the minutes of a cold build overlap other files instead of delaying them all;
// a lock directory makes a second file wait for the first one's build instead of repeating it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildRuntimeImage } from '../../scripts/build-runtime-image.mjs';
import { ensureLocalBaseImage } from './local-base-image.ts';

/** Not the `npm run build:runtime-image` default tag: this one is built FROM the local base. */
export const TEST_RUNTIME_IMAGE = 'occ-runtime:local-test';
const LOCK = join(tmpdir(), 'occ-test-runtime-image.lock');
/** A lock older than this was left by a killed run. */
const STALE_MS = 20 * 60_000;

function assertDockerAnswers(): void {
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 30_000 });
  if (info.status === 0) return;
  const reason = info.error ? info.error.message : (info.stderr || '').trim().split('\n').at(-1);
  throw new Error(
    `The Docker engine does not answer (${reason}). These tests need a real dockerd: start it with ` +
      '`dockerd --bridge=none >/tmp/dockerd.log 2>&1 &` (Debian package docker.io; .ci/run does this).',
  );
}

async function locked<T>(work: () => T): Promise<T> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      const age = (() => {
        try {
          return Date.now() - statSync(LOCK).mtimeMs;
        } catch {
          return 0;
        }
      })();
      if (age > STALE_MS) rmSync(LOCK, { recursive: true, force: true });
      await sleep(1_000);
    }
  }
  try {
    return work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** The test runtime image's tag, built if needed (minutes when cold, about a second when up to date). */
export async function ensureTestRuntimeImage(): Promise<string> {
  assertDockerAnswers();
  return locked(() => {
    const base = ensureLocalBaseImage();
    const image = buildRuntimeImage({ base: base.tag, tag: TEST_RUNTIME_IMAGE, quiet: true });
    console.log(`runtime image: base ${base.tag} ${base.built ? 'made' : 'up to date'} in ${base.ms} ms; ${image.tag} ${image.built ? 'built' : 'up to date'} in ${image.ms} ms`);
    return image.tag;
  });
}
