import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the pinned Node 24, OpenClaw and the Codex app-server live (installed by scripts/install-openclaw.mjs). */
export interface PinnedToolchain {
  nodeDir: string;
  /** Put first on PATH for every OpenClaw child process. */
  nodeBinDir: string;
  nodeBinary: string;
  openclawDir: string;
  /** The CLI entry (`node <openclawEntry> …`). */
  openclawEntry: string;
  codexDir: string;
  /** The Codex CLI entry (`node <codexEntry> app-server …`); it runs the platform binary. */
  codexEntry: string;
  /**
   * The installed official OpenClaw Codex harness plugin (`@openclaw/codex`, pinned in codex/
   * beside the @openai/codex it depends on): the gateway loads it from here through
   * a link in the Agent's `$OPENCLAW_STATE_DIR/extensions/codex`, with no network install.
   */
  codexPluginDir: string;
}

export function pinnedToolchain(runtimeDir = dirname(dirname(fileURLToPath(import.meta.url)))): PinnedToolchain {
  const nodeDir = join(runtimeDir, 'node24');
  const nodeBinDir = join(nodeDir, 'node_modules', '.bin');
  const openclawDir = join(runtimeDir, 'openclaw');
  const codexDir = join(runtimeDir, 'codex');
  return {
    nodeDir,
    nodeBinDir,
    nodeBinary: join(nodeDir, 'node_modules', 'node', 'bin', 'node'),
    openclawDir,
    openclawEntry: join(openclawDir, 'node_modules', 'openclaw', 'openclaw.mjs'),
    codexDir,
    codexEntry: join(codexDir, 'node_modules', '@openai', 'codex', 'bin', 'codex.js'),
    codexPluginDir: join(codexDir, 'node_modules', '@openclaw', 'codex'),
  };
}
