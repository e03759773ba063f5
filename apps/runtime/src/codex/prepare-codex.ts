import { isDeepStrictEqual } from 'node:util';
import type { DeploymentStepName, PluginWarning, PolicyViolation, RuntimeManifest } from '@occ/contracts';
import {
  codexAppConfigEdits,
  codexAppToolSettings,
  codexHostedRules,
  codexInstallPlan,
  CodexPolicyError,
  codexRuntimeArtifact,
  codexToolInventoryNeeded,
  verifyCodexAppConfiguration,
  verifyCodexReviewerConfiguration,
  type CodexConfig,
  type CodexConfigRequirements,
  type CodexInstallPlan,
  type CodexPluginDetail,
  type CodexRuntimeArtifact,
} from '@occ/policy';
import { StartupFailure } from '../failure.ts';
import { logEvent } from '../log.ts';
import { StartupProgress } from '../progress.ts';
import { AppServerError, type AppServerClient } from './app-server-client.ts';
import { installCodexPlugins } from './install.ts';
import { readMcpInventory } from './inventory.ts';
import { locateSelections, type LocatedPlugin } from './locate.ts';
import { readCodexPluginDetails } from './plugin-details.ts';
import { linkPluginSkills } from './skills.ts';
import { appServerFailure, appServerStep, malformedAnswer } from './startup-failure.ts';

export interface CodexPrepareInput {
  /** A connection to the revision's dedicated app-server (its private CODEX_HOME already written). */
  client: Pick<AppServerClient, 'request'>;
  manifest: RuntimeManifest;
  /** Directories holding local marketplaces (`plugin/list`'s `cwds`). */
  marketplaces: readonly string[];
  /** The Agent's workspace: `config/read` from here includes its trusted `.codex` layers. */
  workspace: string;
  /** Where the plugin skills are linked (runtime assets) and OpenClaw's home that links to them. */
  assetsDir: string;
  openclawHome: string;
  /** Deadline of one `plugin/install`; every other request has REQUEST_TIMEOUT_MS. */
  installTimeoutMs: number;
  signal: AbortSignal;
  /** Where the steps are reported (the runtime's status); a fresh one (the log only) when absent. */
  progress?: StartupProgress;
}

/** What a prepared Codex revision publishes, and the artifact its gateway bridge is rendered from. */
export interface CodexPrepared {
  plugins: string[];
  failures: PluginWarning[];
  artifact: CodexRuntimeArtifact;
}

const REQUEST_TIMEOUT_MS = 30_000;

/** `plugin/read`'s detail as the runtime reads it: the policy's fields, plus the install state and the skills' files. */
type ReadDetail = CodexPluginDetail & {
  summary: CodexPluginDetail['summary'] & { installed: boolean; enabled: boolean };
  skills: readonly { name: string; path: string | null; enabled: boolean }[];
};

function policyFailure(violations: readonly PolicyViolation[], what: string): StartupFailure {
  logEvent('policy.invalid', { harness: 'codex', step: what, violations: violations.map((found) => `${found.code} ${found.path || '/'}`) });
  return new StartupFailure('PLUGIN_POLICY_INVALID', `The Codex plugin policy cannot be applied: ${what}.`);
}

function verificationFailure(violations: readonly PolicyViolation[], what: string): StartupFailure {
  logEvent('config.verify.failed', { harness: 'codex', step: what, violations: violations.map((found) => `${found.code} ${found.path || '/'}`) });
  return new StartupFailure('CONFIG_VERIFICATION_FAILED', `The effective Codex configuration does not hold the admitted policy (${what}).`);
}

async function configRead(client: CodexPrepareInput['client'], cwd: string, options: { timeoutMs: number; signal: AbortSignal }): Promise<CodexConfig> {
  const answer = await appServerStep('the configuration read', () => client.request<unknown>('config/read', { cwd }, options));
  const config = typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>).config : undefined;
  if (typeof config !== 'object' || config === null || Array.isArray(config)) throw malformedAnswer('config/read', 'config');
  return config as CodexConfig;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fields of a detail the runtime and the policy read, checked before anything trusts them ([W-2]: malformed is a startup failure). */
function checkDetail(detail: unknown): ReadDetail {
  const fine =
    isRecord(detail) &&
    typeof detail.marketplaceName === 'string' &&
    isRecord(detail.summary) &&
    typeof detail.summary.id === 'string' &&
    typeof detail.summary.name === 'string' &&
    typeof detail.summary.installed === 'boolean' &&
    typeof detail.summary.enabled === 'boolean' &&
    ['version', 'localVersion'].every(
      (field) => (detail.summary as Record<string, unknown>)[field] == null || typeof (detail.summary as Record<string, unknown>)[field] === 'string',
    ) &&
    ['skills', 'hooks', 'apps', 'appTemplates', 'mcpServers'].every((field) => Array.isArray(detail[field])) &&
    (detail.scheduledTasks == null || Array.isArray(detail.scheduledTasks)) &&
    (detail.apps as unknown[]).every((app) => isRecord(app) && typeof app.id === 'string' && typeof app.name === 'string') &&
    (detail.skills as unknown[]).every(
      (skill) => isRecord(skill) && typeof skill.name === 'string' && typeof skill.enabled === 'boolean' && (skill.path === null || typeof skill.path === 'string'),
    );
  if (!fine) throw malformedAnswer('plugin/read', 'plugin detail');
  const checked = detail as unknown as ReadDetail;
  return {
    ...checked,
    summary: { ...checked.summary, version: checked.summary.version ?? null, localVersion: checked.summary.localVersion ?? null },
    scheduledTasks: checked.scheduledTasks ?? null,
  };
}

/** `plugin/list`, then the details of the enabled selections, four at a time in selection order ([X-3]). */
async function readSelections(
  input: CodexPrepareInput,
  enabledKeys: readonly string[],
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<{ located: LocatedPlugin[]; details: Map<string, ReadDetail> }> {
  const wanted = enabledKeys.map((selectionKey) => ({ selectionKey, nativeId: codexHostedRules.nativePluginId(selectionKey) }));
  const located = wanted.length === 0 ? [] : await locateSelections(input.client, wanted, { ...options, cwds: input.marketplaces });
  const details = await appServerStep('the plugin detail reads', () =>
    readCodexPluginDetails<unknown>(
      input.client,
      located.map((plugin) => plugin.location),
      { requestTimeoutMs: options.timeoutMs },
    ),
  );
  return { located, details: new Map(located.map((plugin, index) => [plugin.selectionKey, checkDetail(details[index])])) };
}

function plan(selections: RuntimeManifest['plugins']['selections'], details: ReadonlyMap<string, CodexPluginDetail>): CodexInstallPlan {
  const planned = codexInstallPlan({ selections, details });
  if (!planned.ok) throw policyFailure(planned.violations, 'the install plan');
  return planned.plan;
}

/**
 * The Codex startup (README.md, "The Codex harness"): list → details (batched) → install plan
 * (support and policy, before any install) → sequential installs → tool binding through the
 * `codex_apps` inventory when a policy names tools → one `config/batchWrite` from the merged
 * layers → post-install reads (batched) proving identity, version and the plan unchanged →
 * workspace-aware readback of apps and reviewers → skills linked. Throws StartupFailure for
 * anything that must keep the revision unready; only install rejections and apps needing
 * authentication become warnings.
 */
export async function prepareCodexRevision(input: CodexPrepareInput): Promise<CodexPrepared> {
  const { client, manifest, signal } = input;
  const options = { timeoutMs: REQUEST_TIMEOUT_MS, signal };
  const progress = input.progress ?? new StartupProgress();
  const step = async <T>(name: DeploymentStepName, run: () => Promise<T> | T): Promise<T> => {
    const started = Date.now();
    const result = await run();
    progress.stepDone(name, { harness: 'codex', ms: Date.now() - started });
    return result;
  };
  const selections = manifest.plugins.selections;
  const enabledKeys = Object.keys(selections)
    .sort()
    .filter((key) => selections[key]!.enabled);

  // Read even with no plugin: a dedicated app-server that cannot answer is a failed startup ([S-3]).
  await step('read-config', () => configRead(client, input.workspace, options));
  const read = await step('read-plugins', () => readSelections(input, enabledKeys, options));
  const planned = await step('plan', () => plan(selections, read.details));

  const targets = read.located.map(({ selectionKey, location }) => ({ selectionKey, location }));
  const warnings = await step('install', () => installCodexPlugins(client, targets, { timeoutMs: input.installTimeoutMs, signal }, progress));
  const failures = new Set(warnings.map((warning) => warning.pluginId));

  let inventory: Awaited<ReturnType<typeof readMcpInventory>> = [];
  if (codexToolInventoryNeeded(planned, failures)) inventory = await step('read-tool-inventory', () => readMcpInventory(client, options));
  const bound = codexAppToolSettings({ plan: planned, inventory, failures });
  if (!bound.ok) throw policyFailure(bound.violations, 'the tool policies');
  let artifact: CodexRuntimeArtifact;
  try {
    artifact = codexRuntimeArtifact({ plan: planned, toolSettings: bound.toolSettings, failures });
  } catch (error) {
    if (error instanceof CodexPolicyError) throw policyFailure(error.violations, 'the app configuration');
    throw error;
  }

  await step('write-config', async () => {
    const layered = await configRead(client, input.workspace, options);
    let edits: ReturnType<typeof codexAppConfigEdits>;
    try {
      edits = codexAppConfigEdits({ artifact, effective: layered });
    } catch (error) {
      if (error instanceof CodexPolicyError) throw verificationFailure(error.violations, 'the merged configuration');
      throw error;
    }
    try {
      await client.request('config/batchWrite', { edits, reloadUserConfig: true }, options);
    } catch (error) {
      if (error instanceof AppServerError && error.kind === 'rpc') {
        logEvent('config.write.refused', { rpcCode: error.rpcCode ?? null, edits: edits.length });
        throw new StartupFailure('RUNTIME_CONFIG_WRITE_FAILED', 'The codex app-server refused the revision’s configuration.');
      }
      throw appServerFailure(error, 'the configuration write');
    }
  });

  // Post-install reads, batched like the first ([X-4]): what is installed must be what was planned.
  const reread = await step('verify-installs', async () => {
    const again = await readSelections(input, enabledKeys, options);
    const replanned = plan(selections, again.details);
    if (!isDeepStrictEqual(replanned, planned)) throw new StartupFailure('PLUGIN_VERIFICATION_FAILED', 'The installed Codex plugins differ from the ones planned.');
    for (const row of planned.rows) {
      if (!row.enabled || failures.has(row.selectionKey)) continue;
      const summary = again.details.get(row.selectionKey)?.summary;
      if (!summary || summary.id !== row.nativeId || !summary.installed || !summary.enabled) {
        logEvent('plugin.verify.failed', { pluginId: row.selectionKey, installed: summary?.installed ?? null, enabled: summary?.enabled ?? null });
        throw new StartupFailure('PLUGIN_VERIFICATION_FAILED', 'A selected Codex plugin is not installed and enabled as planned.');
      }
    }
    return again;
  });

  await step('verify-config', async () => {
    const effective = await configRead(client, input.workspace, options);
    const apps = verifyCodexAppConfiguration({ artifact, effective });
    if (apps.length > 0) throw verificationFailure(apps, 'apps');
    const answer = await appServerStep('the requirements read', () => client.request<unknown>('configRequirements/read', {}, options));
    const requirements = typeof answer === 'object' && answer !== null ? (answer as { requirements?: unknown }).requirements : undefined;
    if (requirements === undefined || (requirements !== null && typeof requirements !== 'object')) throw malformedAnswer('configRequirements/read', 'requirements');
    const model = typeof effective.model === 'string' ? effective.model : null;
    const reviewers = verifyCodexReviewerConfiguration({ artifact, effective, requirements: requirements as CodexConfigRequirements | null, model });
    if (reviewers.length > 0) throw verificationFailure(reviewers, 'reviewers');
  });

  await step('link-skills', () => {
    const installed = planned.rows.filter((row) => row.enabled && !failures.has(row.selectionKey));
    return linkPluginSkills({
      assetsDir: input.assetsDir,
      openclawHome: input.openclawHome,
      plugins: installed.map((row) => ({ nativeId: row.nativeId, skills: reread.details.get(row.selectionKey)?.skills ?? [] })),
    });
  });

  return {
    plugins: planned.rows.filter((row) => row.enabled && !failures.has(row.selectionKey)).map((row) => row.selectionKey),
    failures: warnings,
    artifact,
  };
}
