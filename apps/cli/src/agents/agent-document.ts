import type { Agent } from '@occ/contracts';

/** The fields of an Agent a document sets (what `occ apply -f` and `occ agents edit` manage). */
export const AGENT_DOCUMENT_FIELDS = ['name', 'harness', 'configurationId', 'harnessAuth', 'plugins', 'pluginApprovers'] as const;
/** The names a document may give instead of ids: `configuration` for configurationId, `codexPat` for harnessAuth. */
export const AGENT_DOCUMENT_NAMES = ['configuration', 'codexPat'] as const;

/** How names in an Agent document become ids: its Configuration, and the Secret holding a Codex PAT. */
export interface AgentReferences {
  configurationId(name: string): Promise<string>;
  secretId(name: string): Promise<string>;
}

/**
 * An Agent document is the API's create body, where a person may name things instead of giving
 * ids: `configuration: NAME` for configurationId and `codexPat: SECRET` for harnessAuth.
 */
export async function resolveAgentDocument(document: Record<string, unknown>, references: AgentReferences): Promise<Record<string, unknown>> {
  const { configuration, codexPat, ...body } = document;
  if (typeof configuration === 'string') body.configurationId = await references.configurationId(configuration);
  if (typeof codexPat === 'string') body.harnessAuth = { method: 'codex_pat', secretId: await references.secretId(codexPat) };
  return body;
}

/** The names of what an Agent refers to by id; undefined where the name cannot be read (the id stays). */
export interface AgentNames {
  configurationName(id: string): Promise<string | undefined>;
  secretName(id: string): Promise<string | undefined>;
}

/**
 * An Agent as a document `occ agents apply -f` / `occ apply -f` takes back (the inverse of
 * resolveAgentDocument): `kind: Agent`, its name and harness, its Configuration and Codex PAT
 * Secret by name where they can be read, its plugin map, and its approvers when it has any.
 * Server-kept fields (id, version, state, times) are not part of it: a document does not set them.
 */
export async function agentDocument(agent: Agent, names: AgentNames): Promise<Record<string, unknown>> {
  const configuration = await names.configurationName(agent.configurationId);
  const codexPat = agent.harnessAuth ? await names.secretName(agent.harnessAuth.secretId) : undefined;
  return {
    kind: 'Agent',
    name: agent.name,
    harness: agent.harness,
    ...(configuration !== undefined ? { configuration } : { configurationId: agent.configurationId }),
    ...(agent.harnessAuth ? (codexPat !== undefined ? { codexPat } : { harnessAuth: agent.harnessAuth }) : {}),
    plugins: agent.plugins,
    ...(agent.pluginApprovers !== null ? { pluginApprovers: agent.pluginApprovers } : {}),
  };
}
