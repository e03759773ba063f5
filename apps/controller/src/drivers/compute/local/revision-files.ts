import { existsSync, mkdirSync } from 'node:fs';
import type { AgentRevision, RuntimeManifest } from '@occ/contracts';
import { writePrivateFileAtomic } from '@occ/runtime/private-files';
import { agentPaths, privateDir, readIfExists, revisionPaths, type AgentPaths, type RevisionPaths } from './layout.ts';

/** The revision directory, its manifest (rewritten only if it changed) and the Agent's directories. */
export function stageRevision(root: string, revision: AgentRevision, manifest: RuntimeManifest): { paths: RevisionPaths; agentPaths: AgentPaths } {
  const ap = agentPaths(root, revision.agentId);
  const paths = revisionPaths(root, revision.agentId, revision.id);
  privateDir(root);
  privateDir(ap.dir);
  // The Agent's state is created once and otherwise left alone (P-5).
  if (!existsSync(ap.state)) mkdirSync(ap.state, { mode: 0o700 });
  privateDir(ap.home);
  privateDir(ap.tmp);
  privateDir(ap.revisions);
  privateDir(paths.dir);
  privateDir(paths.logs);
  const content = `${JSON.stringify(manifest, null, 2)}\n`;
  if (readIfExists(paths.manifest) !== content) writePrivateFileAtomic(paths.manifest, content);
  return { paths, agentPaths: ap };
}

/** The manifest a revision was staged with, or null when it is missing or describes another revision. */
export function stagedManifest(paths: RevisionPaths, agentId: string, revisionId: string): RuntimeManifest | null {
  let manifest: RuntimeManifest | null;
  try {
    manifest = JSON.parse(readIfExists(paths.manifest) ?? 'null') as RuntimeManifest | null;
  } catch {
    return null;
  }
  return manifest?.agentId === agentId && manifest.revisionId === revisionId ? manifest : null;
}
