import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { pinnedToolchain } from './toolchain.ts';

/** How a compute driver starts a runtime process: `spawn(command, args)` with the environment in README.md. */
export interface RuntimeLaunchCommand {
  command: string;
  args: string[];
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
  return { command: pinnedToolchain().nodeBinary, args: ['--import', loader, entry] };
}
