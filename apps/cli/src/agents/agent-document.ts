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
