import type { PickerEntry } from '../picker/picker-model.ts';
import { PluginLogo } from './plugin-logo.tsx';

/**
 * One catalog entry in the picker. Everything shown is catalog text rendered as text. Selecting and
 * removing are one native toggle button ("Select X" / "Remove X"); when it cannot be pressed, the reason is written next to it and tied to it
 * with aria-describedby, so the disabled state is explained in words.
 */
export function PluginCard({
  entry,
  configured,
  index,
  onLoadTools,
  onSelect,
  onRemove,
}: {
  entry: PickerEntry;
  /** Whether the Agent's selections (the editor's, not only this session's picks) hold this entry. */
  configured: boolean;
  index: number;
  onLoadTools: () => void;
  onSelect: () => void;
  onRemove: () => void;
}) {
  const reasonId = `picker-entry-${index}-reason`;
  const reason = unselectableReason(entry);
  return (
    <li class="card" aria-label={entry.name}>
      <div class="card-title">
        <PluginLogo logo={entry.logo} name={entry.name} />
        <h3>{entry.name}</h3>
      </div>
      <p class="muted small">
        <code>{entry.id}</code>
      </p>
      {entry.description ? <p class="card-description">{entry.description}</p> : null}
      {!entry.available ? <p class="warning">Unavailable: {entry.unavailableReason ?? 'this release is not supported here.'}</p> : null}
      <p class="small">
        Connection: {entry.connection} <span class="muted">(discovery reads the catalog; it does not test the service)</span>
      </p>
      <ToolsLine entry={entry} onLoadTools={onLoadTools} />
      <div class="button-row">
        {/* One toggle in a fixed place: pressing it re-renders the same button with the other
            name, so keyboard focus stays on it instead of falling to <body>. */}
        {configured ? <span class="badge badge-good">Selected</span> : null}
        <button
          type="button"
          class={configured ? undefined : 'button-primary'}
          onClick={configured ? onRemove : onSelect}
          disabled={!configured && reason !== null}
          aria-describedby={!configured && reason ? reasonId : undefined}
        >
          {configured ? `Remove ${entry.name}` : `Select ${entry.name}`}
        </button>
        {!configured && reason ? (
          <span id={reasonId} class="help">
            {reason}
          </span>
        ) : null}
      </div>
    </li>
  );
}

function ToolsLine({ entry, onLoadTools }: { entry: PickerEntry; onLoadTools: () => void }) {
  if (entry.toolsStatus === 'loaded') return <p class="small">{entry.tools!.length === 1 ? '1 tool' : `${entry.tools!.length} tools`}</p>;
  if (entry.toolsStatus === 'loading')
    return (
      <p class="small" aria-busy="true">
        Loading tools…
      </p>
    );
  return (
    <p class="small">
      {entry.toolsStatus === 'error' ? 'Its tools could not be loaded. ' : 'Tools not known yet. '}
      <button type="button" onClick={onLoadTools}>
        {entry.toolsStatus === 'error' ? 'Retry loading tools' : 'Load tools'} of {entry.name}
      </button>
    </p>
  );
}

/** Why Select is disabled, in words; null when it is enabled ([C-5], [C-6]). */
function unselectableReason(entry: PickerEntry): string | null {
  if (entry.selectable) return null;
  if (!entry.available) return 'Not selectable: this release is unavailable.';
  if (entry.toolsStatus === 'loading') return 'Not selectable until its tools are loaded.';
  return 'Not selectable until its tools are known: load them first.';
}
