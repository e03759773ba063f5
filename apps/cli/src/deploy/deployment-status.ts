import type { Agent, DeploymentStatus } from '@occ/contracts';
import type { ApiClient } from '@occ/contracts/client';
import type { View } from '../output/render.ts';

/** A revision's deployment status with what a person asks next: does the Agent run, and which revision. */
export interface AgentDeployment {
  agent: Agent;
  status: DeploymentStatus;
  /** The number of the Agent's active revision (its id if that cannot be read), or null. */
  activeRevision: number | string | null;
}

export async function readAgentDeployment(client: ApiClient, ns: string, agentId: string, revisionId: string): Promise<AgentDeployment> {
  const [agent, status] = await Promise.all([
    client.call('getAgent', { params: { ns, id: agentId } }).then((r) => r.data as Agent),
    client.call('getDeploymentStatus', { params: { ns, id: agentId, rev: revisionId } }).then((r) => r.data as DeploymentStatus),
  ]);
  return { agent, status, activeRevision: await activeRevisionNumber(client, ns, agent, status) };
}

async function activeRevisionNumber(client: ApiClient, ns: string, agent: Agent, status: DeploymentStatus): Promise<number | string | null> {
  const active = agent.activeRevisionId;
  if (active === null) return null;
  if (active === status.revisionId) return status.revision;
  try {
    return (await client.call('getAgentRevision', { params: { ns, id: agent.id, rev: active } })).data.revision;
  } catch {
    return active; // the pointer moved on between the two reads: its id still says which
  }
}

/** The table of `occ status` and of the end of `occ deploy --wait`; json/yaml print the status's data. */
export function deploymentView({ agent, activeRevision }: Omit<AgentDeployment, 'status'>): View<DeploymentStatus> {
  return {
    kind: 'deployment',
    id: (s) => s.revisionId,
    name: (s) => String(s.revision),
    wide: [
      ['last attempt', (s) => (s.lastAttempt ? `${s.lastAttempt.code ?? '-'} ${s.lastAttempt.at}` : null)],
      ['next attempt', (s) => s.nextAttemptAt],
      ['error', (s) => s.error?.code],
    ],
    columns: [
      ['agent', () => agent.name],
      ['desired', () => agent.desiredState],
      ['active revision', () => activeRevision],
      ['revision', (s) => s.revision],
      ['state', (s) => s.state],
      ['reason', (s) => s.reasonCode],
      ['attempts', (s) => s.attempts],
      ['active', (s) => (s.active ? 'yes' : 'no')],
      ['warnings', (s) => s.warnings.map((w) => `${w.pluginId} ${w.code}`).join(', ')],
    ],
  };
}

/** Why a deployment did not become active, for stderr: its state, reason code and error. */
export function outcomeProblem(status: DeploymentStatus): string[] {
  const lines = [`error: the deployment of revision ${status.revision} ${status.state === 'failed' ? 'failed' : `was ${status.state}`}: ${status.reasonCode ?? 'no reason code'}`];
  if (status.error) lines.push(`  ${status.error.code}: ${status.error.message}`);
  if (status.state === 'superseded') lines.push('  a newer revision of the Agent was admitted before this one became active');
  if (status.state === 'stopped') lines.push('  the Agent was stopped before this revision became active');
  return lines;
}
