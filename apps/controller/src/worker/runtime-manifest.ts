import { CODEX_PAT_ENVIRONMENT, type AgentRevision, type RuntimeManifest } from '@occ/contracts';

/**
 * The non-secret request a revision's runtime receives: Secret references become env names only
 * (the Agent's codex_pat: `harnessAuth.environment`; the Configuration's bindings: `secretEnvironment`).
 * (The specification calls this step `pluginRuntimeSpecForRevision`.)
 */
export function runtimeManifest(revision: AgentRevision): RuntimeManifest {
  return {
    manifestVersion: 1,
    namespaceId: revision.namespaceId,
    agentId: revision.agentId,
    revisionId: revision.id,
    revision: revision.revision,
    harness: revision.harness,
    harnessAuth: revision.harnessAuth ? { method: revision.harnessAuth.method, environment: CODEX_PAT_ENVIRONMENT } : null,
    plugins: { driverId: revision.pluginDriverId, selections: revision.plugins, approvers: revision.pluginApprovers },
    configuration: { id: revision.configuration.id, generation: revision.configuration.generation, values: revision.configuration.values },
    secretEnvironment: Object.keys(revision.configuration.secretBindings).sort(),
  };
}
