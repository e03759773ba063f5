import type { Approver, Harness, PluginMap, PluginSelection } from '@occ/contracts';
import { useEffect, useRef } from 'preact/hooks';
import { useConsole } from '../app/console-context.ts';
import type { DiscoveryCredential } from '../picker/discovery-api.ts';
import { ErrorMessage } from '../ui/error-message.tsx';
import { AgentApproversSection } from './agent-approvers-section.tsx';
import { PickerDialog } from './picker-dialog.tsx';
import { SelectionEditor, selectionHeadingId } from './selection-editor.tsx';
import { useCapabilities } from './use-capabilities.ts';
import { usePicker } from './use-picker.ts';

/**
 * The Agent's plugin selections and tool policies, edited with real controls, with the picker
 * dialog to add plugins. Used by the create-Agent page and the Plugins tab.
 */
export interface PluginSelectionsEditorProps {
  /** Whose catalog the picker browses (null: curated catalogs that need no credential). */
  credential: DiscoveryCredential | null;
  harness: Harness;
  selections: PluginMap;
  onChange: (next: PluginMap) => void;
  /**
   * The last save's error: its JSON pointers under `/plugins/…` (and `/pluginApprovers`) are
   * shown at the control they name.
   */
  saveError: unknown;
  /** An existing Agent (capabilities from `getAgentPluginCapabilities`); null while creating. */
  agent: { ns: string; agentId: string } | null;
  /**
   * The Agent-wide default approvers (`pluginApprovers`: null = none configured, [] = nobody).
   * Edited here only when `onAgentApproversChange` is given; the caller saves them with the plugins.
   */
  agentApprovers?: Approver[] | null;
  onAgentApproversChange?: (next: Approver[] | null) => void;
}

/**
 * `selections` (the prop) is the single source of truth; the PickerModel is used for browsing
 * the catalog and as the gate that refuses entries that are not selectable. Policies of a removed
 * plugin are remembered here, so adding it back restores them instead of resetting them.
 */
export function PluginSelectionsEditor({
  credential,
  harness,
  selections,
  onChange,
  saveError,
  agent,
  agentApprovers = null,
  onAgentApproversChange,
}: PluginSelectionsEditorProps) {
  const { api } = useConsole();
  const { model, state, memory } = usePicker(api, credential, selections);
  const { capabilities, error: capabilitiesError } = useCapabilities(api, agent, harness);
  const removed = useRef(new Map<string, PluginSelection>());
  const addButton = useRef<HTMLButtonElement>(null);
  // After "Remove X" below, its section (and the focused button) is gone: focus moves to the plugin
  // now in its place (or the last one), or to "Add plugins" when none is left — never to <body>.
  const focusAfterRemove = useRef<string | null | undefined>(undefined);

  const add = (id: string) => {
    if (Object.hasOwn(selections, id) || !model.select(id)) return;
    const previous = removed.current.get(id);
    removed.current.delete(id);
    onChange({ ...selections, [id]: previous ? { ...previous, enabled: true } : { enabled: true } });
  };
  const remove = (id: string) => {
    const current = selections[id];
    if (current === undefined) return;
    model.deselect(id);
    removed.current.set(id, current);
    const { [id]: _removed, ...rest } = selections;
    onChange(rest);
  };

  const keys = Object.keys(selections);
  useEffect(() => {
    const target = focusAfterRemove.current;
    if (target === undefined) return;
    focusAfterRemove.current = undefined;
    const heading = target === null ? null : document.getElementById(selectionHeadingId(target));
    if (heading) heading.focus();
    else addButton.current?.focus();
  }, [keys.join('\n')]);
  const removeFromEditor = (key: string) => {
    const index = keys.indexOf(key);
    const rest = keys.filter((other) => other !== key);
    focusAfterRemove.current = rest[Math.min(index, rest.length - 1)] ?? null;
    remove(key);
  };

  return (
    <section class="plugin-editor" aria-label="Plugin selections">
      <div class="button-row">
        <button type="button" ref={addButton} class="button-primary" onClick={() => model.openPicker()} disabled={capabilities === null}>
          Add plugins
        </button>
        <span class="muted">{keys.length === 1 ? '1 plugin configured' : `${keys.length} plugins configured`}</span>
      </div>
      {capabilities === null ? <p class="notice">This harness has no plugin driver on this installation: plugins cannot be selected.</p> : null}
      {capabilitiesError ? (
        <ErrorMessage error={capabilitiesError} context="The plugin capabilities could not be read; every control is offered and the server checks the save" />
      ) : null}
      {keys.length === 0 ? <p>No plugins configured. Use “Add plugins” to choose from the catalog.</p> : null}
      {keys.map((key) => (
        <SelectionEditor
          key={key}
          pluginKey={key}
          name={memory.names.get(key) ?? key}
          selection={selections[key]!}
          tools={memory.tools.get(key) ?? null}
          capabilities={capabilities}
          saveError={saveError}
          onChange={(next) => onChange({ ...selections, [key]: next })}
          onRemove={() => removeFromEditor(key)}
        />
      ))}
      {onAgentApproversChange ? <AgentApproversSection approvers={agentApprovers} capabilities={capabilities} saveError={saveError} onChange={onAgentApproversChange} /> : null}
      <PickerDialog model={model} state={state} selections={selections} names={memory.names} onSelect={add} onRemove={remove} />
    </section>
  );
}
