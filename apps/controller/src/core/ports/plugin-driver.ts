import type { Approver, Harness, NativeConfigurationPreview, PluginCatalogEntry, PluginCatalogPage, PluginMap, PluginPolicyCapabilities, PolicyViolation } from '@occ/contracts';

/**
 * The PluginDriver port: one per harness. The policy surface is static (no I/O); catalog
 * discovery is optional and credential-scoped (docs/api.md, "Plugin discovery").
 */
export interface PluginDriver {
  readonly id: string;
  readonly harness: Harness;
  readonly policyCapabilities: PluginPolicyCapabilities;
  /** Static checks only (no I/O): unsupported controls, scopes and combinations. */
  validatePolicies(plugins: PluginMap, agentApprovers?: Approver[]): PolicyViolation[];
  /**
   * The selections its catalog does not offer, when that catalog is known without I/O (the
   * rule the runtime's plan and the deploy's dry run apply), checked when an Agent is saved.
   * Absent: membership is known only with a credential or at startup (Codex's hosted catalog).
   */
  uncataloguedSelections?(plugins: PluginMap): PolicyViolation[];
  /** Absent: this driver cannot discover plugins (discovery answers 501, no Secret is read). */
  readonly discovery?: PluginDiscovery;
  /**
   * The native configuration the runtime would write for these selections over the
   * Configuration's values, by the same translation the runtime runs (a deploy's dry run).
   * Absent: nothing of it is static for this harness.
   */
  previewNativeConfiguration?(plugins: PluginMap, configurationValues: Record<string, unknown>): NativeConfigurationPreview;
}

/** `none`: the catalog is public (no credential is accepted); `codex_pat`: a PAT is required. */
export type DiscoveryCredentialKind = 'none' | 'codex_pat';

export interface CatalogListRequest {
  /** The credential's value, in memory only (from `withValue` or a transient accessToken). */
  credential?: string;
  q?: string;
  /** Opaque cursor from a previous page of the same query and credential. */
  cursor?: string;
}

export interface CatalogDetailsRequest {
  credential?: string;
  /** The entry's `remoteId` (or `id` where the catalog has no remote ids). */
  pluginId: string;
}

export interface PluginDiscovery {
  readonly credential: DiscoveryCredentialKind;
  listCatalog(request: CatalogListRequest, signal: AbortSignal): Promise<PluginCatalogPage>;
  getCatalogPlugin(request: CatalogDetailsRequest, signal: AbortSignal): Promise<PluginCatalogEntry>;
}

/** Why discovery failed, in a closed vocabulary; the HTTP layer maps it to a fixed message. */
/** `invalid_cursor`: the cursor was not issued for this query and credential (a 400 at /cursor). */
/** `credential_malformed`: the credential is not of the form the driver accepts, so no catalog was asked. */
export type PluginDiscoveryFailure = 'credentials_rejected' | 'credential_malformed' | 'rate_limited' | 'invalid_response' | 'unavailable' | 'not_found' | 'invalid_cursor';

/** The only error a PluginDiscovery may throw. Carries no upstream text and no cause. */
export class PluginDiscoveryError extends Error {
  constructor(readonly reason: PluginDiscoveryFailure) {
    super(`Plugin discovery failed: ${reason}`);
    this.name = 'PluginDiscoveryError';
  }
}

/** The configured PluginDriver of each harness; a harness without one is absent. */
export type PluginDriverRegistry = Partial<Record<Harness, PluginDriver>>;
