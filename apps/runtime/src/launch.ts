import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinnedToolchain } from './toolchain.ts';

/** How a compute driver starts a runtime process: `spawn(command, args)` with the environment in README.md. */
export interface RuntimeLaunchCommand {
  command: string;
  args: string[];
  /** What the command reads of this host (its code and pinned toolchain): all a confined runtime is shown of the checkout. */
  readOnly: string[];
}

/**
 * The pinned Node 24 running `src/entry.ts` through tsx's ESM loader (absolute paths, so the
 * working directory does not matter). The started process is the runtime itself: its pid is the
 * one `endpoint.json` names.
 */
export function runtimeLaunchCommand(): RuntimeLaunchCommand {
  const require = createRequire(import.meta.url);
  const loader = require.resolve('tsx/esm');
  const entry = fileURLToPath(new URL('./entry.ts', import.meta.url));
  const runtimeDir = dirname(dirname(entry));
  const workspace = dirname(dirname(runtimeDir));
  // The runtime's own directory (code and toolchain), the workspace packages it imports, the
  // dependencies tsx resolves: never the rest of the checkout (a default data directory lives there).
  const readOnly = [
    runtimeDir,
    join(workspace, 'packages'),
    join(workspace, 'node_modules'),
    join(workspace, 'package.json'),
    join(workspace, 'tsconfig.json'),
    dirname(dirname(loader)),
  ];
  return { command: pinnedToolchain().nodeBinary, args: ['--import', loader, entry], readOnly: [...new Set(readOnly)].filter((path) => existsSync(path)) };
}
