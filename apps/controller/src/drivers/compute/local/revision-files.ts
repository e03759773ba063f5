import { existsSync, mkdirSync } from 'node:fs';
import type { AgentRevision, RuntimeManifest } from '@occ/contracts';
import { readIfExists, writePrivateFileAtomic } from '@occ/host-io/private-files';
import { agentPaths, privateDir, revisionPaths, type AgentPaths, type RevisionPaths } from './layout.ts';

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
  const content = manifestText(manifest);
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
  if (manifest?.agentId !== agentId || manifest.revisionId !== revisionId) return null;
  // Staged before manifests carried `harnessAuth` (only OpenClaw revisions ran here then, none
  // with a harness credential): recovery runs this file as it is, so it gains the field now.
  if (!Object.hasOwn(manifest, 'harnessAuth')) {
    manifest = { ...manifest, harnessAuth: null };
    writePrivateFileAtomic(paths.manifest, manifestText(manifest));
  }
  return manifest;
}

const manifestText = (manifest: RuntimeManifest) => `${JSON.stringify(manifest, null, 2)}\n`;
