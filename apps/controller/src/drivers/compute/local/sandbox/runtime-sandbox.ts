import { isAbsolute, relative } from 'node:path';
import type { CodexRuntimeSettings } from '../../runtime-contract/codex-settings.ts';
import type { AgentPaths, RevisionPaths } from '../layout.ts';
import type { LaunchCommand } from '../runtime-process.ts';
import { networkFiles, runsAsRoot, sandboxUid } from './confinement.ts';
import type { SandboxPlan } from './sandbox-command.ts';

export interface RuntimeSandboxInput {
  /** An empty directory the new root is mounted on. */
  root: string;
  /** The network bridge's socket directory, inside the revision directory. */
  bridgeDir: string;
  launch: LaunchCommand;
  agent: AgentPaths;
  revision: RevisionPaths;
  agentId: string;
  /** The operator's files a runtime reads: the catalog, CA bundles, local Codex marketplaces. */
  catalog?: string | undefined;
  network: Readonly<Record<string, string>>;
  codex?: CodexRuntimeSettings | undefined;
  /** The installation's npm content store (npm-content-store.ts), shown read-only. */
  npmContent?: string | undefined;
}

/**
 * What one revision's runtime sees: its launch's code and toolchain, the operator's files and the
 * installation's npm content store read-only; its Agent's state, home, temp directory and this revision's directory read-write
 * (never the Agent's other revisions); the manifest read-only on top; the driver's logs and pid
 * file hidden (the driver reads and writes them as OCC, so the Agent must not be able to swap
 * them for links).
 */
export function sandboxPlan(input: RuntimeSandboxInput): SandboxPlan {
  const operatorFiles = [...(input.catalog ? [input.catalog] : []), ...networkFiles(input.network), ...(input.codex?.marketplaces ?? [])];
  const readOnly = outermost([...(input.launch.readOnly ?? []), ...(input.npmContent ? [input.npmContent] : [])].filter((path) => isAbsolute(path)));
  const user = runsAsRoot() ? { uid: sandboxUid(input.agentId), gid: sandboxUid(input.agentId) } : null;
  return {
    root: input.root,
    readOnly,
    copied: outermost(operatorFiles.filter((path) => isAbsolute(path))),
    readWrite: [input.agent.state, input.agent.home, input.agent.tmp, input.revision.dir],
    readOnlyOverlays: [input.revision.manifest],
    hidden: [input.revision.logs, input.revision.pidFile],
    cwd: input.revision.dir,
    user,
    isolateNetwork: true,
    bridgeDir: input.bridgeDir,
  };
}

/** The paths not inside another one of the list (each is mounted once). */
function outermost(paths: string[]): string[] {
  const unique = [...new Set(paths)];
  return unique.filter((path) => !unique.some((other) => other !== path && isInside(path, other)));
}

function isInside(path: string, parent: string): boolean {
  const rel = relative(parent, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}
