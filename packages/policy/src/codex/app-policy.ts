import type { ApprovalMode, PluginSelection, Reviewer } from '@occ/contracts';
import type { CodexAppToolApproval, CodexApprovalsReviewer } from './native-types.ts';

/** OCC approval modes in Codex's words; `provider_default` leaves approvals to the app (`auto`). */
export const CODEX_APPROVAL_MODES: Readonly<Record<ApprovalMode, CodexAppToolApproval>> = Object.freeze({
  provider_default: 'auto',
  all_actions: 'prompt',
  write_actions: 'writes',
  none: 'approve',
});

export const CODEX_REVIEWERS: Readonly<Record<Reviewer, CodexApprovalsReviewer>> = Object.freeze({
  human: 'user',
  auto: 'auto_review',
});

/** One tool's native settings: a key is present only when the policy says something. */
export interface CodexToolSetting {
  enabled?: boolean;
  approval_mode?: CodexAppToolApproval;
}

/** The app-level half of a selection's policy, as every concrete app of that selection gets it. */
export interface CodexAppPolicy {
  default_tools_approval_mode: CodexAppToolApproval;
  default_tools_enabled?: boolean;
  approvals_reviewer?: CodexApprovalsReviewer;
  /** Always written: `_default` turns the category off, and an app must not inherit that by accident. */
  destructive_enabled: boolean;
  /** Always on for a selected app, as the gateway's own thread configuration does; `_default` keeps it off. */
  open_world_enabled: true;
}

export function codexAppPolicy(selection: PluginSelection): CodexAppPolicy {
  const { toolDefaults } = selection;
  const policy: CodexAppPolicy = {
    default_tools_approval_mode: CODEX_APPROVAL_MODES[toolDefaults?.approval ?? 'provider_default'],
    destructive_enabled: destructiveEnabled(selection) !== false,
    open_world_enabled: true,
  };
  if (toolDefaults?.enabled !== undefined) policy.default_tools_enabled = toolDefaults.enabled;
  if (toolDefaults?.reviewer !== undefined) policy.approvals_reviewer = CODEX_REVIEWERS[toolDefaults.reviewer];
  return policy;
}

/** `driverPolicy.destructiveEnabled`; anything but a boolean was refused by codexHostedRules. */
export function destructiveEnabled(selection: PluginSelection): boolean | undefined {
  const value = selection.driverPolicy?.destructiveEnabled;
  return typeof value === 'boolean' ? value : undefined;
}

/** The tool override's settings in Codex's words; `{}` when it only names approvers or a reviewer. */
export function codexToolSetting(selection: PluginSelection, toolId: string): CodexToolSetting {
  const tools = selection.tools ?? {};
  const policy = Object.hasOwn(tools, toolId) ? tools[toolId]! : {};
  const setting: CodexToolSetting = {};
  if (policy.enabled !== undefined) setting.enabled = policy.enabled;
  if (policy.approval !== undefined) setting.approval_mode = CODEX_APPROVAL_MODES[policy.approval];
  return setting;
}
