// The runtime image the docker tests run, made by the first test file that needs it: the engine
// must answer, then the local base (no pull), the toolchain image and the image of this tree are
// built unless already there with the same inputs (each cached by a content label). Built inside a test file, not a
// global setup, so the minutes of a cold build overlap other files instead of delaying them all;
// a lock directory makes a second file wait for the first one's build instead of repeating it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildRuntimeImage } from '../../scripts/build-runtime-image.mjs';
import { ensureLocalBaseImage } from './local-base-image.ts';

/** Not the `npm run build:runtime-image` default tag: this one is built FROM the local base. */
const TEST_RUNTIME_IMAGE = 'occ-runtime:local-test';
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

/** Where the last check wrote which vitest run made sure of which image. */
const CHECKED = join(tmpdir(), 'occ-test-runtime-image.checked');

/**
 * The vitest run this file runs in: its main process (a test file runs in a child of it) by pid
 * and start time, so a later run, even one given the same pid, never matches. Null outside vitest.
 */
function vitestRun(): string | null {
  try {
    const parent = process.ppid;
    if (!readFileSync(`/proc/${parent}/cmdline`, 'utf8').includes('vitest')) return null;
    // Field 22 of /proc/<pid>/stat, after the parenthesized command name: the start time in ticks.
    const startTicks = readFileSync(`/proc/${parent}/stat`, 'utf8').split(') ')[1]!.split(' ')[19];
    return `${parent}@${startTicks}`;
  } catch {
    return null;
  }
}

function imageId(tag: string): string | null {
  const inspected = spawnSync('docker', ['image', 'inspect', '--format', '{{.Id}}', tag], { encoding: 'utf8' });
  return inspected.status === 0 ? inspected.stdout.trim() : null;
}

/**
 * The test runtime image's tag, built if needed (minutes when cold, about a second when up to date).
 * Checked once per vitest run: the check (ldd over the base's binaries and OpenClaw's natives, a
 * stat of every app file) costs seconds to tens of seconds of a loaded machine, and the docker
 * files of one run would each repeat it. The 1.2 GB toolchain is its own image, keyed by its
 * lockfiles (scripts/build-runtime-image.mjs): a clean clone's `npm ci` does not rebuild it.
 */
export async function ensureTestRuntimeImage(): Promise<string> {
  assertDockerAnswers();
  return locked(() => {
    const run = vitestRun();
    const checked = (() => {
      try {
        return readFileSync(CHECKED, 'utf8').trim();
      } catch {
        return '';
      }
    })();
    if (run !== null && checked === `${run} ${imageId(TEST_RUNTIME_IMAGE)}`) {
      console.log(`runtime image: ${TEST_RUNTIME_IMAGE} already checked in this run`);
      return TEST_RUNTIME_IMAGE;
    }
    const base = ensureLocalBaseImage();
    const image = buildRuntimeImage({ base: base.tag, tag: TEST_RUNTIME_IMAGE, quiet: true });
    const { toolchain } = image;
    console.log(
      `runtime image: base ${base.tag} ${base.built ? 'made' : 'up to date'} in ${base.ms} ms; ` +
        `${toolchain.tag} ${toolchain.built ? 'built' : 'up to date'} in ${toolchain.ms} ms; ${image.tag} ${image.built ? 'built' : 'up to date'} in ${image.ms} ms`,
    );
    if (run !== null) writeFileSync(CHECKED, `${run} ${imageId(image.tag)}\n`);
    return image.tag;
  });
}
