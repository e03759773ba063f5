import type { PluginPolicyCapabilities, PluginSelection } from '@occ/contracts';
import { detailWords } from '../ui/api-errors.ts';
import { ApproversEditor } from './approvers-editor.tsx';
import { errorsExactly, errorsUnder } from './plugin-errors.ts';
import { controlId, pluginPointer } from './plugin-pointer.ts';

/** The id of a configured plugin's heading, so focus can be moved to it after a neighbour is removed. */
export function selectionHeadingId(pluginKey: string): string {
  return controlId('plugin-heading', pluginPointer(pluginKey));
}
import { ALL_APPROVAL_MODES, ALL_REVIEWERS, APPROVAL_WORDS, REVIEWER_WORDS } from './policy-words.ts';
import { PolicySelect, TriStateSelect } from './policy-select.tsx';
import { booleanOf, patchTool, patchToolDefaults, setEnabled, setPluginApprovers, triStateOf } from './selection-updates.ts';

export interface KnownTool {
  id: string;
  name: string;
}

/**
 * undefined: not known (loading, or could not be read) — every control is offered and the
 * server decides; null: the harness has no PluginDriver.
 */
export type KnownCapabilities = PluginPolicyCapabilities | null | undefined;

/** One configured plugin's controls: enabled, tool defaults, per-tool overrides, approvers, remove. */
export function SelectionEditor({
  pluginKey,
  name,
  selection,
  tools,
  capabilities,
  saveError,
  onChange,
  onRemove,
}: {
  pluginKey: string;
  name: string;
  selection: PluginSelection;
  /** The plugin's tool inventory as the catalog reported it; null: not known yet. */
  tools: readonly KnownTool[] | null;
  capabilities: KnownCapabilities;
  saveError: unknown;
  onChange: (next: PluginSelection) => void;
  onRemove: () => void;
}) {
  const at = (...rest: string[]) => pluginPointer(pluginKey, ...rest);
  const caps = capabilities ?? null;
  const known = capabilities !== undefined && capabilities !== null;
  // Errors naming the plugin itself (an invalid key, an alias) or a field without its own control here.
  const sectionErrors = [...errorsExactly(saveError, at()), ...errorsUnder(saveError, at('driverPolicy'))];
  const enabledId = controlId('plugin-enabled', at('enabled'));
  const enabledErrors = errorsUnder(saveError, at('enabled'));
  const defaults = selection.toolDefaults ?? {};
  const showDefaultReviewer = !known || caps!.reviewer.toolDefaults.length > 0 || defaults.reviewer !== undefined;
  const toolRows = mergeTools(tools, Object.keys(selection.tools ?? {}));
  const overrides = selection.tools ?? {};
  const showToolReviewer = !known || caps!.reviewer.tools.length > 0 || Object.values(overrides).some((tool) => tool.reviewer !== undefined);
  const showToolApprovers = !known || caps!.approvers.tool || Object.values(overrides).some((tool) => tool.approvers !== undefined);
  const showPluginApprovers = !known || caps!.approvers.plugin || selection.approvers !== undefined;

  return (
    <section class="plugin-selection" aria-label={`Plugin ${name}`}>
      <header class="plugin-selection-header">
        <h3 id={selectionHeadingId(pluginKey)} tabIndex={-1}>
          {name}
        </h3>
        <code class="small">{pluginKey}</code>
        <button type="button" class="button-danger" onClick={onRemove}>
          Remove {name}
        </button>
      </header>
      {sectionErrors.length > 0 ? (
        <p class="field-error" role="alert">
          {sectionErrors.map(detailWords).join(' ')}
        </p>
      ) : null}
      <div class={enabledErrors.length > 0 ? 'check-row field-invalid' : 'check-row'}>
        <input
          type="checkbox"
          id={enabledId}
          checked={selection.enabled}
          onChange={(event) => onChange(setEnabled(selection, event.currentTarget.checked))}
          aria-describedby={enabledErrors.length > 0 ? `${enabledId}-error` : undefined}
        />
        <label for={enabledId}>Enabled (a disabled plugin stays configured but is not turned on)</label>
      </div>
      {enabledErrors.length > 0 ? (
        <p id={`${enabledId}-error`} class="field-error">
          {enabledErrors.map(detailWords).join(' ')}
        </p>
      ) : null}

      <fieldset>
        <legend>Tool defaults (every tool of {name} without its own setting)</legend>
        <div class="control-row">
          <TriStateSelect
            id={controlId('defaults-enabled', at('toolDefaults', 'enabled'))}
            label="Tools enabled"
            value={triStateOf(defaults.enabled)}
            inheritLabel="Plugin's default"
            errors={errorsUnder(saveError, at('toolDefaults', 'enabled'))}
            onChange={(value) => onChange(patchToolDefaults(selection, { enabled: booleanOf(value) }))}
          />
          <PolicySelect
            id={controlId('defaults-approval', at('toolDefaults', 'approval'))}
            label="Approval"
            value={defaults.approval}
            values={ALL_APPROVAL_MODES}
            allowed={known ? caps!.approval.toolDefaults : null}
            words={APPROVAL_WORDS}
            inheritLabel="Not set"
            errors={errorsUnder(saveError, at('toolDefaults', 'approval'))}
            onChange={(approval) => onChange(patchToolDefaults(selection, { approval }))}
          />
          {showDefaultReviewer ? (
            <PolicySelect
              id={controlId('defaults-reviewer', at('toolDefaults', 'reviewer'))}
              label="Reviewer"
              value={defaults.reviewer}
              values={ALL_REVIEWERS}
              allowed={known ? caps!.reviewer.toolDefaults : null}
              words={REVIEWER_WORDS}
              inheritLabel="Not set"
              errors={errorsUnder(saveError, at('toolDefaults', 'reviewer'))}
              onChange={(reviewer) => onChange(patchToolDefaults(selection, { reviewer }))}
            />
          ) : null}
        </div>
      </fieldset>

      <h4>Tools of {name}</h4>
      {tools === null ? (
        <p class="help">The catalog has not reported this plugin's tools yet: open "Add plugins", find it and choose "Load tools" to set per-tool overrides.</p>
      ) : null}
      {tools !== null && toolRows.length === 0 ? <p class="help">The catalog reports no tools for this plugin.</p> : null}
      {toolRows.length > 0 ? (
        <div class="table-wrap">
          <table class="data-table">
            <caption class="visually-hidden">Per-tool overrides of {name}</caption>
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Enabled</th>
                <th scope="col">Approval</th>
                {showToolReviewer ? <th scope="col">Reviewer</th> : null}
                {showToolApprovers ? <th scope="col">Approvers</th> : null}
              </tr>
            </thead>
            <tbody>
              {toolRows.map((tool) => {
                const policy = overrides[tool.id] ?? {};
                const toolAt = (field: string) => at('tools', tool.id, field);
                const rowErrors = errorsExactly(saveError, at('tools', tool.id));
                return (
                  <tr key={tool.id}>
                    <th scope="row">
                      {tool.name}
                      {tool.name !== tool.id ? (
                        <div class="muted small">
                          <code>{tool.id}</code>
                        </div>
                      ) : null}
                      {rowErrors.length > 0 ? <p class="field-error">{rowErrors.map(detailWords).join(' ')}</p> : null}
                    </th>
                    <td>
                      <TriStateSelect
                        compact
                        id={controlId('tool-enabled', toolAt('enabled'))}
                        label={`${tool.name} (${name}): enabled`}
                        value={triStateOf(policy.enabled)}
                        inheritLabel="Default"
                        errors={errorsUnder(saveError, toolAt('enabled'))}
                        onChange={(value) => onChange(patchTool(selection, tool.id, { enabled: booleanOf(value) }))}
                      />
                    </td>
                    <td>
                      <PolicySelect
                        compact
                        id={controlId('tool-approval', toolAt('approval'))}
                        label={`${tool.name} (${name}): approval`}
                        value={policy.approval}
                        values={ALL_APPROVAL_MODES}
                        allowed={known ? caps!.approval.tools : null}
                        words={APPROVAL_WORDS}
                        inheritLabel="Default"
                        errors={errorsUnder(saveError, toolAt('approval'))}
                        onChange={(approval) => onChange(patchTool(selection, tool.id, { approval }))}
                      />
                    </td>
                    {showToolReviewer ? (
                      <td>
                        <PolicySelect
                          compact
                          id={controlId('tool-reviewer', toolAt('reviewer'))}
                          label={`${tool.name} (${name}): reviewer`}
                          value={policy.reviewer}
                          values={ALL_REVIEWERS}
                          allowed={known ? caps!.reviewer.tools : null}
                          words={REVIEWER_WORDS}
                          inheritLabel="Default"
                          errors={errorsUnder(saveError, toolAt('reviewer'))}
                          onChange={(reviewer) => onChange(patchTool(selection, tool.id, { reviewer }))}
                        />
                      </td>
                    ) : null}
                    {showToolApprovers ? (
                      <td>
                        <ApproversEditor
                          label={`Approvers of ${tool.name} (${name})`}
                          path={toolAt('approvers')}
                          approvers={policy.approvers}
                          saveError={saveError}
                          onChange={(approvers) => onChange(patchTool(selection, tool.id, { approvers }))}
                        />
                      </td>
                    ) : null}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}

      {showPluginApprovers ? (
        <ApproversEditor
          label={`Approvers for ${name}`}
          path={at('approvers')}
          approvers={selection.approvers}
          saveError={saveError}
          onChange={(approvers) => onChange(setPluginApprovers(selection, approvers))}
        />
      ) : (
        <p class="help">
          This harness's plugin driver does not route approvals per plugin or per tool, so approvers cannot be set here
          {known && caps!.approvers.agent ? ' (set the Agent-wide approvers instead)' : ''}.
        </p>
      )}
    </section>
  );
}

/** The catalog's tools, then any tool the saved policy names that the catalog did not list (so it can still be cleared). */
function mergeTools(tools: readonly KnownTool[] | null, configured: readonly string[]): KnownTool[] {
  const rows = [...(tools ?? [])];
  const seen = new Set(rows.map((tool) => tool.id));
  for (const id of configured) if (!seen.has(id)) rows.push({ id, name: id });
  return rows;
}
