import type { PolicyViolation } from '@occ/contracts';
import { setOwn } from '../json.ts';
import { codexAppPolicy, destructiveEnabled, type CodexAppPolicy, type CodexToolSetting } from './app-policy.ts';
import type { CodexInstallPlan } from './plan.ts';
import type { CodexAppToolSettings } from './tool-binding.ts';

/** The Codex features plugin apps need; all on iff some selection is enabled. */
export interface CodexFeatures {
  apps: boolean;
  plugins: boolean;
  remote_plugin: boolean;
}

/** `apps._default`: every app without a table of its own is off, and so is every category it could inherit. */
export interface CodexDefaultAppEntry {
  enabled: false;
  open_world_enabled: false;
  destructive_enabled: false;
}

/** An enabled app carries its selection's policy; a disabled one is only `{enabled: false}`. */
export type CodexAppEntry = ({ enabled: true } & CodexAppPolicy & { tools?: Record<string, CodexToolSetting> }) | { enabled: false };

/** Mirrors one entry of the gateway's `plugins.entries.codex.config.codexPlugins.plugins`. */
export interface CodexBridgePluginEntry {
  enabled: boolean;
  marketplaceName: string;
  pluginName: string;
  allow_destructive_actions: false | 'auto';
}

/** The OpenClaw configuration block that points the gateway's Codex harness at the selections. */
export interface CodexBridgeConfig {
  plugins: {
    entries: {
      codex: {
        enabled: true;
        config: {
          codexPlugins: {
            enabled: boolean;
            allow_all_plugins: false;
            plugins: Record<string, CodexBridgePluginEntry>;
          };
        };
      };
    };
  };
}

export interface CodexRuntimeArtifact {
  features: CodexFeatures;
  /** Written as `apps._default`; kept apart from `apps` so no app id can collide with it. */
  defaultApp: CodexDefaultAppEntry;
  /** Per concrete app id, in plan order. */
  apps: Record<string, CodexAppEntry>;
  bridge: CodexBridgeConfig;
}

export interface CodexRuntimeArtifactInput {
  plan: CodexInstallPlan;
  toolSettings: CodexAppToolSettings;
  /** Selections whose install was rejected or whose apps need authentication: disabled (G-1). */
  failures: ReadonlySet<string>;
}

/** A plan, tool binding or configuration readback that refuses the policy; carries every violation. */
export class CodexPolicyError extends Error {
  constructor(readonly violations: PolicyViolation[]) {
    const details = violations.map((found) => `${found.path || '/'} ${found.message}`);
    super(`Codex policy cannot be applied: ${details.join('; ')}`);
    this.name = 'CodexPolicyError';
  }
}

/**
 * The native artifact of a plan (X-2, X-5, X-10, X-12, X-17, X-18, X-1, G-1):
 * - `features` and `apps._default` in the private CODEX_HOME; `_default` is off with every
 *   category off, so nothing Codex adds later (an account app, a template instantiated) runs.
 * - one table per concrete app of an enabled, installed selection (from `detail.apps`, never
 *   templates), mapping the policy onto Codex's names (app-policy.ts). Tool keys appear only for
 *   tools the policy names, and only with the fields it sets (X-12: unspecified stays unset).
 *   `destructive_enabled` and `open_world_enabled` are always written, so an app's categories never
 *   fall back to `_default`'s `false` by accident nor rise above what the selection allows.
 * - `{enabled: false}` for an app only disabled or failed selections use.
 * - the gateway bridge: the Codex harness is always on (the Agent's harness is Codex, with or
 *   without plugins); `codexPlugins` is on with one entry per selection, keyed `<slug>@<marketplace>`
 *   as the gateway expects, disabled when the selection is disabled or failed (G-1). With no
 *   selections it is written off with no entries, so no default and no Configuration can turn on
 *   account-wide exposure; `allow_all_plugins` is always false.
 * The plan and settings are read, never changed (G-3).
 */
export function codexRuntimeArtifact({ plan, toolSettings, failures }: CodexRuntimeArtifactInput): CodexRuntimeArtifact {
  const active = (selectionKey: string, enabled: boolean) => enabled && !failures.has(selectionKey);
  const anyEnabled = plan.rows.some((row) => row.enabled);
  const apps: Record<string, CodexAppEntry> = {};
  const bridgePlugins: Record<string, CodexBridgePluginEntry> = {};
  // An app shared by an installed selection and a failed one keeps the installed one's table.
  for (const row of plan.rows) {
    const running = active(row.selectionKey, row.enabled);
    for (const app of row.apps) {
      if (running) {
        const tools = toolSettings.get(app);
        const entry: CodexAppEntry = { enabled: true, ...codexAppPolicy(row.selection) };
        if (tools !== undefined && Object.keys(tools).length > 0) entry.tools = structuredClone({ ...tools });
        setOwn(apps, app, entry);
      } else if (!Object.hasOwn(apps, app)) {
        setOwn(apps, app, { enabled: false });
      }
    }
    setOwn(bridgePlugins, row.nativeId, {
      enabled: running,
      marketplaceName: row.marketplaceName,
      pluginName: row.pluginName,
      allow_destructive_actions: destructiveEnabled(row.selection) === false ? false : 'auto',
    });
  }
  return {
    features: { apps: anyEnabled, plugins: anyEnabled, remote_plugin: anyEnabled },
    defaultApp: { enabled: false, open_world_enabled: false, destructive_enabled: false },
    apps,
    bridge: {
      plugins: {
        entries: {
          codex: {
            enabled: true,
            config: { codexPlugins: { enabled: plan.rows.length > 0, allow_all_plugins: false, plugins: bridgePlugins } },
          },
        },
      },
    },
  };
}
