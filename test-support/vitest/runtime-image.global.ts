// Global setup of the projects that run the real runtime image on the real Docker engine: the
// engine must answer, then the local base (no pull) and the runtime image of this tree are made
// if they are not already there with the same inputs (both cached by a content label).
import { spawnSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { buildRuntimeImage } from '../../scripts/build-runtime-image.mjs';
import { ensureLocalBaseImage } from '../docker/local-base-image.ts';
import './provided-context.ts';

/** Not the `npm run build:runtime-image` default tag: this one is built FROM the local base. */
export const TEST_RUNTIME_IMAGE = 'occ-runtime:local-test';

function assertDockerAnswers(): void {
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 30_000 });
  if (info.status === 0) return;
  const reason = info.error ? info.error.message : (info.stderr || '').trim().split('\n').at(-1);
  throw new Error(
    `The Docker engine does not answer (${reason}). These tests need a real dockerd: start it with ` +
      '`dockerd --bridge=none >/tmp/dockerd.log 2>&1 &` (Debian package docker.io; .ci/run does this).',
  );
}

export default function setup(project: TestProject): void {
  assertDockerAnswers();
  const base = ensureLocalBaseImage();
  const image = buildRuntimeImage({ base: base.tag, tag: TEST_RUNTIME_IMAGE, quiet: true });
  console.log(`runtime image: base ${base.tag} ${base.built ? 'made' : 'up to date'} in ${base.ms} ms; ${image.tag} ${image.built ? 'built' : 'up to date'} in ${image.ms} ms`);
  project.provide('runtimeImage', image.tag);
}
