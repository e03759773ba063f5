import { createHash } from 'node:crypto';
import type Docker from 'dockerode';
import { LABELS, networkName } from './container-spec.ts';
import type { DockerComputeSettings } from './settings.ts';
import { formatCidr, freeSubnet, parseCidr, type Cidr } from './subnets.ts';

/**
 * Each Agent's own bridge network: its containers share no network namespace with the host or
 * with another Agent. From inside, the host's loopback (OCC's API, PostgreSQL, every published
 * runtime port) does not exist, and the engine's isolation rules drop traffic between two
 * Agents' bridges; egress (model providers, registries, a proxy) leaves through the engine's NAT.
 * What stays reachable is in docs/compute-docker.md ("What an Agent can reach").
 */
export interface AgentIdentity {
  namespaceId: string;
  agentId: string;
}

/** The bridge's interface on the host: `occ` + 12 hex (Linux allows 15), so one firewall rule (`-i occ+`) covers every Agent. */
export function bridgeName(installation: string, agentId: string): string {
  return `occ${createHash('sha256').update(`${installation}/${agentId}`).digest('hex').slice(0, 12)}`;
}

/** What `docker network create` is given (the Engine API's NetworkCreate body). */
export function networkSpec(settings: DockerComputeSettings, agent: AgentIdentity, subnet: Cidr) {
  return {
    Name: networkName(settings.installation, agent.agentId),
    // Names are not unique on the engine unless asked: a second creator gets 409 and uses the first's.
    CheckDuplicate: true,
    Driver: 'bridge',
    // Not internal: an internal network has no route out, so no model provider or registry either.
    Internal: false,
    Attachable: false,
    IPAM: { Driver: 'default', Config: [{ Subnet: formatCidr(subnet) }] },
    Options: { 'com.docker.network.bridge.name': bridgeName(settings.installation, agent.agentId) },
    Labels: {
      [LABELS.managedBy]: 'occ',
      [LABELS.installation]: settings.installation,
      [LABELS.namespaceId]: agent.namespaceId,
      [LABELS.agentId]: agent.agentId,
    },
  };
}

const statusOf = (error: unknown) => (error as { statusCode?: number }).statusCode;
const ATTEMPTS = 5;

/**
 * The Agent's network, created when missing; idempotent (found by name on a repeat, by another
 * OCC process too). Answers null when it exists, else why it cannot (fixed text, no secret).
 */
export async function ensureAgentNetwork(docker: Docker, settings: DockerComputeSettings, agent: AgentIdentity): Promise<string | null> {
  const name = networkName(settings.installation, agent.agentId);
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    try {
      const labels = (await docker.getNetwork(name).inspect()).Labels ?? {};
      // A same-named network OCC did not make for this Agent may hold anyone's containers: never join it.
      const ours = labels[LABELS.managedBy] === 'occ' && labels[LABELS.installation] === settings.installation && labels[LABELS.agentId] === agent.agentId;
      return ours ? null : `A network named ${name} exists that OCC did not create for this Agent.`;
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
    const taken = (await docker.listNetworks()).flatMap((n) => (n.IPAM?.Config ?? []).map((c) => parseCidr(c.Subnet ?? '', false)).filter((c): c is Cidr => c !== null));
    const subnet = freeSubnet(settings.subnets, taken, `${settings.installation}/${agent.agentId}`);
    if (!subnet) return `No /28 is left in OCC_DOCKER_SUBNETS (${formatCidr(settings.subnets)}) for the Agent's network.`;
    try {
      await docker.createNetwork(networkSpec(settings, agent, subnet));
      return null;
    } catch (error) {
      // 409: another process made it meanwhile (found above next time); 403: its subnet went meanwhile (picked again).
      if (statusOf(error) !== 409 && statusOf(error) !== 403) throw error;
    }
  }
  return "The engine kept refusing the Agent's network.";
}

/** Removes the Agent's network once none of its containers is left (a stopped container still needs it to start). */
export async function removeAgentNetwork(docker: Docker, settings: DockerComputeSettings, agentId: string): Promise<void> {
  try {
    await docker.getNetwork(networkName(settings.installation, agentId)).remove();
  } catch (error) {
    // 404: already gone; 403/409: something is attached after all (left for the next retire).
    if (![403, 404, 409].includes(statusOf(error) ?? 0)) throw error;
  }
}
