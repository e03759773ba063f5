import { startAppServer, type AppServerClient } from '../../src/codex/app-server-client.ts';
import { pinnedToolchain } from '../../src/toolchain.ts';

/** The pinned `codex app-server` in `home` (its CODEX_HOME and HOME), inheriting nothing but PATH. */
export function startPinnedAppServer(home: string, cwd = home): Promise<AppServerClient> {
  const toolchain = pinnedToolchain();
  return startAppServer({
    codexEntry: toolchain.codexEntry,
    nodeBinary: toolchain.nodeBinary,
    cwd,
    env: { PATH: `${toolchain.nodeBinDir}:${process.env.PATH ?? ''}`, HOME: home, CODEX_HOME: home },
  });
}
