import type { Approver } from '@occ/contracts';
import { ApproversEditor } from './approvers-editor.tsx';
import { pointer } from './plugin-pointer.ts';
import type { KnownCapabilities } from './selection-editor.tsx';

/** The Agent body's pointer of the Agent-wide list, as the server and the pre-save check name it. */
const AGENT_APPROVERS_PATH = pointer('pluginApprovers');

/**
 * The Agent-wide default approvers (`pluginApprovers`): null = none configured, [] = nobody may
 * approve, or a list. Offered where the harness's driver supports the Agent scope (for Codex it is
 * the only scope), and while capabilities are unknown (the server then decides). A value the
 * driver does not support stays shown, so it can be seen and cleared; the pre-save check marks it.
 */
export function AgentApproversSection({
  approvers,
  capabilities,
  saveError,
  onChange,
}: {
  approvers: Approver[] | null;
  capabilities: KnownCapabilities;
  saveError: unknown;
  onChange: (next: Approver[] | null) => void;
}) {
  const supported = capabilities === undefined ? true : capabilities?.approvers.agent;
  if (!supported && approvers === null) return null;
  const onlyScope = capabilities != null && !capabilities.approvers.plugin && !capabilities.approvers.tool;
  return (
    <section class="agent-approvers" aria-labelledby="agent-approvers-heading">
      <h3 id="agent-approvers-heading">Agent-wide approvers</h3>
      <p class="help">
        {onlyScope
          ? "Who may approve plugin actions for every plugin of this Agent. This harness's plugin driver routes approvals only at this scope."
          : 'Who may approve plugin actions for every plugin of this Agent, unless a plugin or a tool names its own approvers.'}
      </p>
      {!supported ? <p class="warning">This harness's plugin driver does not support Agent-wide approvers: choose “Not configured” to save.</p> : null}
      <ApproversEditor
        label="Default approvers for every plugin of this Agent"
        path={AGENT_APPROVERS_PATH}
        approvers={approvers ?? undefined}
        saveError={saveError}
        onChange={(next) => onChange(next ?? null)}
        choice={{ unset: 'Not configured (no Agent-wide approvers)', nobody: 'Nobody may approve', list: 'These approvers' }}
      />
    </section>
  );
}
