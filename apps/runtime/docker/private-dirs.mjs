// Preloaded by the image's entrypoint (`node --import`), before the runtime: in a container the
// driver mounts one empty tmpfs at /var/lib/occ, and the runtime expects its home, temporary,
// revision and state directories to exist. They are made here, private (0700), in the same
// process, so the runtime stays the container's only process.
import { mkdirSync } from 'node:fs';
import { isAbsolute } from 'node:path';

for (const name of ['HOME', 'TMPDIR', 'OCC_RUNTIME_REVISION_DIR', 'OCC_RUNTIME_STATE_DIR']) {
  const dir = process.env[name];
  if (dir && isAbsolute(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
}
