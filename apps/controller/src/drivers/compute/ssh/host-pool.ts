import { createHash } from 'node:crypto';
import type { ComputeHostDirectory } from '../../../core/ports/compute-hosts.ts';
import { namespaceHostSettings, type SshComputeSettings, type SshHostSettings } from './settings.ts';
import { SshFailure, SshHost } from './ssh-host.ts';

/** How long a Namespace's host, once read, is used without asking the directory again. */
const RESOLVED_FOR_MS = 5_000;

/** One host an Agent's runtimes run on: its connection, and where its Agents' directories are. */
export interface Placement {
  readonly host: SshHost;
  agentsDirectory(): Promise<string>;
}

/**
 * Where each Namespace's Agents run (docs/compute-ssh.md, "Hosts"): the Namespace's own host when
 * it saved one, else the installation's default. One connection per distinct host (address, user,
 * pinned key and client key alike), shared by the Namespaces that name it; a host no Namespace
 * names any more is disconnected. A Namespace's host cannot change while one of its Agents runs
 * (the API refuses it), so the host an Agent's runtimes are on is always its Namespace's.
 */
export class HostPool {
  private directory: ComputeHostDirectory | null = null;
  private readonly placements = new Map<string, HostPlacement>();
  private readonly resolved = new Map<string, { identity: string; until: number }>();

  constructor(private readonly settings: SshComputeSettings) {}

  /** The saved hosts, from the worker that starts the driver (none before: the default host only). */
  use(directory: ComputeHostDirectory | undefined): void {
    this.directory = directory ?? null;
  }

  /** The Namespace's host; SSH_HOST_UNCONFIGURED when it has none and there is no default. */
  async of(namespaceId: string): Promise<Placement> {
    const known = this.resolved.get(namespaceId);
    if (known && known.until > Date.now()) {
      const placement = this.placements.get(known.identity);
      if (placement) return placement;
    }
    const saved = this.directory ? await this.directory.sshHostOf(namespaceId) : null;
    // Validated when it was saved: a host that no longer parses (a Secret rotated to something else) cannot be reached.
    const settings = saved ? safely(() => namespaceHostSettings(saved)) : this.settings.defaultHost;
    if (!settings) throw new SshFailure(saved ? 'SSH_HOST_INVALID' : 'SSH_HOST_UNCONFIGURED');
    const identity = identityOf(settings);
    let placement = this.placements.get(identity);
    if (!placement) {
      placement = new HostPlacement(settings, this.settings.agentsDir);
      this.placements.set(identity, placement);
    }
    this.resolved.set(namespaceId, { identity, until: Date.now() + RESOLVED_FOR_MS });
    await this.closeUnnamed();
    return placement;
  }

  async close(): Promise<void> {
    const open = [...this.placements.values()];
    this.placements.clear();
    this.resolved.clear();
    await Promise.all(open.map((p) => p.host.close()));
  }

  private async closeUnnamed(): Promise<void> {
    const named = new Set([...this.resolved.values()].map((r) => r.identity));
    for (const [identity, placement] of this.placements) {
      if (named.has(identity)) continue;
      this.placements.delete(identity);
      await placement.host.close();
    }
  }
}

class HostPlacement implements Placement {
  readonly host: SshHost;
  private agentsDir: Promise<string> | null = null;

  constructor(
    settings: SshHostSettings,
    private readonly configuredAgentsDir: string | null,
  ) {
    this.host = new SshHost(settings);
  }

  /** OCC_SSH_AGENTS_DIR, or `.occ/agents` under the user's home (asked once per host). */
  agentsDirectory(): Promise<string> {
    if (this.configuredAgentsDir) return Promise.resolve(this.configuredAgentsDir);
    this.agentsDir ??= this.host.run('printf %s "$HOME"').then(({ stdout }) => {
      if (!/^\/[A-Za-z0-9._/+-]*$/.test(stdout)) throw new Error("The SSH user's home is not a plain absolute path: set OCC_SSH_AGENTS_DIR.");
      return `${stdout.replace(/\/+$/, '')}/.occ/agents`;
    });
    this.agentsDir.catch(() => (this.agentsDir = null));
    return this.agentsDir;
  }
}

/** What makes two hosts the same connection; the client key only as its digest. */
function identityOf(s: SshHostSettings): string {
  return createHash('sha256')
    .update(JSON.stringify([s.host, s.port, s.user, s.hostKeySha256.toString('base64'), createHash('sha256').update(s.privateKey).digest('base64')]))
    .digest('base64');
}

function safely<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}
