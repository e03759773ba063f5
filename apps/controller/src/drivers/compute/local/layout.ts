import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { idPattern } from '@occ/contracts';

/**
 * The local driver's files under its root directory:
 *
 *   driver-key                      the key runtime tokens are derived from (0600)
 *   supervisor.pid                  the process that supervises runtimes under this root
 *   agents/<agentId>/state          the Agent's OpenClaw state, kept across revisions (0700)
 *   agents/<agentId>/home           the runtime's HOME (0700)
 *   agents/<agentId>/tmp            the runtime's TMPDIR (0700): temp files of the runtime and npm stay private to the Agent
 *   agents/<agentId>/revisions/<revisionId>/
 *       manifest.json  endpoint.json  runtime.pid  logs/runtime.log     (dir 0700, files 0600)
 *   npm-content/sha512/…            the installation's verified npm content (npm-content-store.ts)
 *
 * No file says which revision is active: the database's pointer does (RuntimeStartAuthority),
 * so a restarted OCC never runs a stale choice. (Earlier versions wrote agents/<agentId>/active;
 * it is no longer read.) Files are written with `writePrivateFileAtomic` (`@occ/host-io/private-files`), the one
 * atomic, fsynced 0600 write the runtime uses for its own files too.
 */
export interface AgentPaths {
  dir: string;
  state: string;
  home: string;
  tmp: string;
  revisions: string;
}

export interface RevisionPaths {
  dir: string;
  manifest: string;
  endpoint: string;
  pidFile: string;
  logs: string;
  logFile: string;
}

const AGENT_ID = new RegExp(idPattern('agent'));
const REVISION_ID = new RegExp(idPattern('agent_revision'));

export const isAgentId = (id: string) => AGENT_ID.test(id);
export const isRevisionId = (id: string) => REVISION_ID.test(id);

/** Ids become path segments: anything but a well-formed id is refused before it reaches a path. */
export function agentPaths(root: string, agentId: string): AgentPaths {
  if (!isAgentId(agentId)) throw new Error('Not an Agent id.');
  const dir = join(root, 'agents', agentId);
  return { dir, state: join(dir, 'state'), home: join(dir, 'home'), tmp: join(dir, 'tmp'), revisions: join(dir, 'revisions') };
}

export function revisionPaths(root: string, agentId: string, revisionId: string): RevisionPaths {
  if (!isRevisionId(revisionId)) throw new Error('Not a revision id.');
  const dir = join(agentPaths(root, agentId).revisions, revisionId);
  const logs = join(dir, 'logs');
  return { dir, manifest: join(dir, 'manifest.json'), endpoint: join(dir, 'endpoint.json'), pidFile: join(dir, 'runtime.pid'), logs, logFile: join(logs, 'runtime.log') };
}

/** Creates a directory (and its parents) and makes it 0700 even if it already existed. */
export function privateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
}
