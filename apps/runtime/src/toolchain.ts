import { readFileSync } from 'node:fs';
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
  /** OpenClaw's public `plugin-sdk/gateway-runtime` module: the gateway client `gateway call` uses (gateway-reads.mjs). */
  openclawGatewayRuntime: string;
  /** The CLI's entry module (`runCli`, what the `openclaw` launcher calls): several read-back commands in one process (openclaw-batch.mjs). */
  openclawRunMain: string;
  /** OpenClaw's public `plugin-sdk/runtime-config-snapshot` (the batch clears the loaded config between commands). */
  openclawConfigSnapshot: string;
  codexDir: string;
  /** The Codex CLI entry (`node <codexEntry> app-server …`); it runs the platform binary. */
  codexEntry: string;
  /**
   * The official OpenClaw Codex harness plugin, pinned in codex/package-lock.json: each Codex
   * Agent's state gets it as an npm install (src/codex/harness-plugin.ts) from `npmCache`, the
   * npm cache scripts/install-openclaw.mjs fills at set-up time.
   */
  codexHarness: { spec: string; integrity: string; npmCache: string; registry: string };
  /** The pinned `@openclaw/codex` package itself (the set-up cache is filled with its spec; tests read its manifest). */
  codexPluginDir: string;
  /** `plugins install --help` of the pinned CLI as set-up recorded it (null when it did not): which install flags it has. */
  installHelp: string | null;
}

/** What scripts/install-openclaw.mjs recorded of `openclaw plugins install --help` for the installed version. */
function recordedInstallHelp(openclawDir: string): string | null {
  try {
    const { version } = JSON.parse(readFileSync(join(openclawDir, 'node_modules', 'openclaw', 'package.json'), 'utf8')) as { version: string };
    return readFileSync(join(openclawDir, `.occ-install-help-${version}.txt`), 'utf8');
  } catch {
    return null;
  }
}

/**
 * The npm cache set-up filled for the pinned harness, and the registry it was filled from (npm
 * keys its cache by URL, so an offline install must name that registry, whatever the Agent's own).
 * Empty when set-up has not filled it: the install then fails with PLUGIN_INSTALL_ERROR.
 */
function harnessCache(npmCache: string, codexDir: string): { npmCache: string; registry: string } {
  try {
    const { version } = JSON.parse(readFileSync(join(codexDir, 'node_modules', '@openclaw', 'codex', 'package.json'), 'utf8')) as { version: string };
    const { registry } = JSON.parse(readFileSync(join(npmCache, `.occ-filled-${version}`), 'utf8')) as { registry?: unknown };
    return { npmCache, registry: typeof registry === 'string' ? registry : '' };
  } catch {
    return { npmCache, registry: '' };
  }
}

/** `@openclaw/codex@<version>` and its integrity, as the committed lockfile pins them. */
function harnessPin(codexDir: string): { spec: string; integrity: string } {
  try {
    const lock = JSON.parse(readFileSync(join(codexDir, 'package-lock.json'), 'utf8')) as { packages?: Record<string, { version?: string; integrity?: string }> };
    const entry = lock.packages?.['node_modules/@openclaw/codex'];
    if (entry?.version && entry.integrity) return { spec: `@openclaw/codex@${entry.version}`, integrity: entry.integrity };
  } catch {
    // Reported below: a toolchain without its lockfile cannot run a Codex Agent.
  }
  return { spec: '', integrity: '' };
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
    openclawGatewayRuntime: join(openclawDir, 'node_modules', 'openclaw', 'dist', 'plugin-sdk', 'gateway-runtime.js'),
    openclawRunMain: join(openclawDir, 'node_modules', 'openclaw', 'dist', 'cli', 'run-main.js'),
    openclawConfigSnapshot: join(openclawDir, 'node_modules', 'openclaw', 'dist', 'plugin-sdk', 'runtime-config-snapshot.js'),
    codexDir,
    codexEntry: join(codexDir, 'node_modules', '@openai', 'codex', 'bin', 'codex.js'),
    codexHarness: { ...harnessPin(codexDir), ...harnessCache(join(codexDir, 'npm-cache'), codexDir) },
    codexPluginDir: join(codexDir, 'node_modules', '@openclaw', 'codex'),
    installHelp: recordedInstallHelp(openclawDir),
  };
}
