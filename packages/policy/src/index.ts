export { escapePointerSegment, parsePointer, pointer, unescapePointerSegment } from './json-pointer.ts';
export { checkAliasedPlugins, checkDuplicateApprovers } from './shared-rules.ts';
export { OPENCLAW_NATIVE_ID_PATTERN, OPENCLAW_SELECTION_PREFIX, openclawCuratedRules } from './openclaw-curated.ts';
export { CODEX_NATIVE_ID_PATTERN, CODEX_SELECTION_PREFIX, codexHostedRules } from './codex-hosted.ts';
export {
  isPluginDriverId,
  pluginPolicyRulesById,
  type PluginDriverId,
  type PluginHarness,
  type PluginPolicyRules,
} from './driver-rules.ts';
export type { OpenClawCatalog, OpenClawCatalogPlugin } from './openclaw/catalog.ts';
export {
  planOpenClawRuntime,
  type OpenClawInstallRow,
  type OpenClawPlannedPlugin,
  type OpenClawPlanResult,
  type OpenClawRuntimePlan,
} from './openclaw/plan.ts';
export { uncataloguedOpenClawSelections } from './openclaw/catalog-membership.ts';
export { findOpenClawConflicts } from './openclaw/conflicts.ts';
export { GOVERNANCE_TOOLS, governanceDenials } from './openclaw/governance.ts';
export { OFFICIAL_EXTERNAL_PLUGIN_IDS, externalPluginsToTurnOff } from './openclaw/external-plugins.ts';
export type { OpenClawConfig } from './openclaw/native-config.ts';
export {
  OpenClawPolicyError,
  translateOpenClawPolicy,
  type OpenClawTranslation,
  type OpenClawTranslationInput,
} from './openclaw/translate.ts';
export { verifyEffectiveConfig } from './openclaw/verify.ts';
export { normalizeNativeName } from './openclaw/plan.ts';
export {
  configurationChosenPlugins,
  DEFAULT_UNSELECTED_PLUGINS_MODE,
  isUnselectedPluginsMode,
  UNSELECTED_PLUGINS_MODES,
  unselectedToolPlugins,
  type UnselectedPluginsMode,
} from './openclaw/unselected.ts';
export { openclawCuratedCatalog } from './openclaw/catalog-data.ts';
export { OpenClawCatalogError, parseOpenClawCatalog } from './openclaw/catalog-parse.ts';
export type {
  CodexAppSummary,
  CodexAppToolApproval,
  CodexApprovalsReviewer,
  CodexConfig,
  CodexConfigEdit,
  CodexConfigRequirements,
  CodexMcpServerStatus,
  CodexPluginDetail,
  CodexPluginSummary,
  CodexTool,
} from './codex/native-types.ts';
export { CODEX_APPROVAL_MODES, CODEX_REVIEWERS, type CodexAppPolicy, type CodexToolSetting } from './codex/app-policy.ts';
export {
  codexInstallPlan,
  type CodexInstallPlan,
  type CodexInstallPlanInput,
  type CodexInstallPlanResult,
  type CodexInstallRow,
} from './codex/plan.ts';
export {
  CODEX_APPS_SERVER,
  codexAppToolSettings,
  codexToolInventoryNeeded,
  type CodexAppToolSettings,
  type CodexToolBindingInput,
  type CodexToolBindingResult,
} from './codex/tool-binding.ts';
export {
  CodexPolicyError,
  codexRuntimeArtifact,
  type CodexAppEntry,
  type CodexBridgeConfig,
  type CodexBridgePluginEntry,
  type CodexDefaultAppEntry,
  type CodexFeatures,
  type CodexRuntimeArtifact,
  type CodexRuntimeArtifactInput,
} from './codex/artifact.ts';
export { codexAppConfigEdits, codexKeyPath, type CodexAppConfigEditsInput } from './codex/app-config.ts';
export { verifyCodexAppConfiguration, type CodexAppVerificationInput } from './codex/verify.ts';
export { verifyCodexReviewerConfiguration, type CodexReviewerVerificationInput } from './codex/reviewers.ts';
