import type Docker from 'dockerode';
import type { RemovedResource } from '../../../core/ports/compute-driver.ts';
import { labelFilter } from './container-spec.ts';
import type { DockerComputeSettings } from './settings.ts';

const statusOf = (error: unknown) => (error as { statusCode?: number }).statusCode;
/** Names as `docker ps` shows them: the engine keeps a leading `/`. */
const bare = (name: string | undefined, fallback: string) => (name ?? fallback).replace(/^\//, '');

/**
 * Everything the engine holds for a deleted Agent in this installation, removed: every container
 * labelled with its id (any revision, any role, running or stopped; their anonymous volumes with
 * them), then every volume and network labelled with it (its own network: agent-network.ts).
 * Found by labels, so a container of a revision OCC no longer knows of (a failed candidate, a
 * crash between create and record) goes too. Idempotent: what is already gone
 * is skipped. Answers what it removed (kinds and names, for the audit event).
 */
export async function removeAgentFromEngine(docker: Docker, settings: DockerComputeSettings, agentId: string, signal: AbortSignal): Promise<RemovedResource[]> {
  const label = labelFilter(settings.installation, { agentId });
  const removed: RemovedResource[] = [];
  for (const container of await docker.listContainers({ all: true, filters: { label } })) {
    signal.throwIfAborted();
    try {
      // The Agent was stopped before it could be deleted: whatever still runs (a restarting candidate) is killed.
      await docker.getContainer(container.Id).remove({ force: true, v: true });
      removed.push({ kind: 'container', name: bare(container.Names?.[0], container.Id) });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
  }
  const volumes = (await docker.listVolumes({ filters: { label } })).Volumes ?? [];
  for (const volume of volumes) {
    signal.throwIfAborted();
    try {
      await docker.getVolume(volume.Name).remove();
      removed.push({ kind: 'volume', name: volume.Name });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
  }
  const networks = new Map((await docker.listNetworks({ filters: { label } })).map((n) => [n.Id, n.Name]));
  for (const [id, name] of networks) {
    signal.throwIfAborted();
    try {
      await docker.getNetwork(id).remove();
      removed.push({ kind: 'network', name });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
  }
  return removed;
}
