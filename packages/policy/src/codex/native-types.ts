/**
 * The small structural subset of the Codex app-server protocol the translator reads and writes,
 * written by hand from `codex app-server generate-ts --experimental` of the pinned
 * `@openai/codex` 0.154.0 (the runtime initializes with `experimentalApi: true`, which is what
 * adds `Config.apps` and `ConfigRequirements.allowedApprovalsReviewers`). Each type names the
 * generated `v2/*.ts` type it mirrors; fields the translator does not read are left out, so a
 * full protocol object is always assignable. Values read back from the app-server are untrusted:
 * the readers in effective.ts check every field they use.
 */

/** Mirrors `v2/AppSummary`. */
export interface CodexAppSummary {
  readonly id: string;
  readonly name: string;
}

/** Mirrors `v2/PluginSummary`: `id` is `<slug>@<marketplace>`. */
export interface CodexPluginSummary {
  readonly id: string;
  readonly name: string;
  readonly version: string | null;
  readonly localVersion: string | null;
}

/** Mirrors `v2/PluginDetail` (the `plugin/read` result's `plugin`). */
export interface CodexPluginDetail {
  readonly marketplaceName: string;
  readonly summary: CodexPluginSummary;
  readonly skills: ReadonlyArray<{ readonly name: string }>;
  readonly hooks: readonly unknown[];
  /** Concrete apps: the only ones the artifact configures (X-5). */
  readonly apps: readonly CodexAppSummary[];
  /** Templates an account could instantiate: never granted from (X-5). */
  readonly appTemplates: readonly unknown[];
  readonly mcpServers: readonly string[];
  readonly scheduledTasks: readonly unknown[] | null;
}

/** Mirrors `Tool` (MCP): `_meta.connector_id` and `_meta._codex_apps.resource_uri` are read. */
export interface CodexTool {
  readonly name: string;
  readonly annotations?: unknown;
  readonly _meta?: unknown;
}

/** Mirrors `v2/McpServerStatus` (one entry of `mcpServerStatus/list`'s `data`). */
export interface CodexMcpServerStatus {
  readonly name: string;
  readonly tools: { readonly [name: string]: CodexTool | undefined };
  readonly toolsError: string | null;
}

/** Mirrors `v2/AppToolApproval`. */
export type CodexAppToolApproval = 'auto' | 'prompt' | 'writes' | 'approve';

/** Mirrors `v2/ApprovalsReviewer`; `guardian_subagent` is the legacy spelling of `auto_review`. */
export type CodexApprovalsReviewer = 'user' | 'auto_review' | 'guardian_subagent';

/** Mirrors `v2/AskForApproval`. */
export type CodexAskForApproval = 'untrusted' | 'on-request' | 'never' | { readonly granular: { readonly [flag: string]: boolean } };

/**
 * Mirrors `v2/Config` (the `config/read` result's `config`): the merged effective configuration.
 * Everything is optional and unknown-typed here because it is read back from another process.
 */
export interface CodexConfig {
  readonly model?: unknown;
  readonly approval_policy?: unknown;
  readonly approvals_reviewer?: unknown;
  readonly features?: unknown;
  readonly apps?: unknown;
  readonly [key: string]: unknown;
}

/** Mirrors `v2/AutoReviewRequirements`. */
export interface CodexAutoReviewRequirements {
  readonly requiredOnModels: readonly string[] | null;
}

/** Mirrors `v2/ConfigRequirements` (`configRequirements/read`'s `requirements`, experimental fields included). */
export interface CodexConfigRequirements {
  readonly allowedApprovalPolicies?: readonly CodexAskForApproval[] | null;
  readonly allowedApprovalsReviewers?: readonly CodexApprovalsReviewer[] | null;
  readonly autoReview?: CodexAutoReviewRequirements | null;
}

/** Mirrors `v2/ConfigEdit` (one entry of `config/batchWrite`'s `edits`) with `v2/MergeStrategy`. */
export interface CodexConfigEdit {
  readonly keyPath: string;
  readonly value: unknown;
  readonly mergeStrategy: 'replace' | 'upsert';
}
