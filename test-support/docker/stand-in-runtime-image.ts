// An image that runs the stand-in runtime (test-support/stand-in-runtime.mjs) instead of OUR
// runtime, on top of the real runtime image (its pinned Node, its user, its private-directory
// preload): for tests of many containers at once, where OpenClaw's minutes per Agent would be the
// whole cost and prove nothing more. Built in seconds from a one-file context.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const STAND_IN_RUNTIME_IMAGE = 'occ-stand-in-runtime:local-test';

export function buildStandInRuntimeImage(runtimeImage: string): string {
  const context = mkdtempSync(join(tmpdir(), 'occ-stand-in-image-'));
  try {
    copyFileSync(fileURLToPath(new URL('../stand-in-runtime.mjs', import.meta.url)), join(context, 'stand-in-runtime.mjs'));
    writeFileSync(
      join(context, 'Dockerfile'),
      [
        `FROM ${runtimeImage}`,
        'COPY stand-in-runtime.mjs /opt/occ/stand-in-runtime.mjs',
        'ENTRYPOINT ["/opt/occ/apps/runtime/node24/node_modules/node/bin/node", "--import", "/opt/occ/apps/runtime/docker/private-dirs.mjs", "/opt/occ/stand-in-runtime.mjs"]',
        '',
      ].join('\n'),
    );
    const built = spawnSync('docker', ['build', '--network', 'none', '-q', '-t', STAND_IN_RUNTIME_IMAGE, context], {
      encoding: 'utf8',
      env: { ...process.env, DOCKER_BUILDKIT: '0' },
    });
    if (built.status !== 0) throw new Error(`docker build of the stand-in image failed: ${built.stderr}`);
    return STAND_IN_RUNTIME_IMAGE;
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}
