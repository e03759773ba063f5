import type { PluginMap } from '@occ/contracts';
import { ApiError } from '@occ/contracts/client';
import type { PickerModel, PickerState } from '../picker/picker-model.ts';
import { useEffect, useRef } from 'preact/hooks';
import type { RefObject } from 'preact';
import { Dialog } from '../ui/dialog.tsx';
import { ErrorMessage } from '../ui/error-message.tsx';
import { PluginCard } from './plugin-card.tsx';
import { isPlainHttpsUrl } from '../picker/entry-presentation.ts';

/**
 * The picker: a wide modal dialog over the one PickerModel. The dialog only renders `state` and
 * forwards actions; debouncing, aborting and stale answers are the model's ([C-3], [C-4]).
 */
export function PickerDialog({
  model,
  state,
  selections,
  names,
  onSelect,
  onRemove,
}: {
  model: PickerModel;
  state: PickerState;
  selections: PluginMap;
  names: ReadonlyMap<string, string>;
  onSelect: (id: string) => void;
  onRemove: (id: string) => void;
}) {
  const configuredKeys = Object.keys(selections);
  const configuredButton = useRef<HTMLButtonElement>(null);
  return (
    <Dialog title="Add plugins" open={state.open} onClose={() => model.closePicker()} wide>
      <div class="picker">
        {/* biome-ignore lint/a11y/useSemanticElements: same semantics as a <fieldset> without the browser's fieldset border, padding and min-width */}
        <div class="button-row" role="group" aria-label="Picker view">
          <button type="button" aria-pressed={state.view === 'available'} onClick={() => model.showAvailable()}>
            Available
          </button>
          <button type="button" ref={configuredButton} aria-pressed={state.view === 'configured'} onClick={() => model.showConfigured()}>
            Configured ({configuredKeys.length})
          </button>
        </div>
        {state.view === 'available' ? (
          <AvailableView model={model} state={state} selections={selections} onSelect={onSelect} onRemove={onRemove} />
        ) : (
          <ConfiguredView keys={configuredKeys} names={names} onRemove={onRemove} fallbackFocus={configuredButton} />
        )}
        <div class="button-row picker-footer">
          <button type="button" class="button-primary" onClick={() => model.closePicker()}>
            Done
          </button>
        </div>
      </div>
    </Dialog>
  );
}

function AvailableView({
  model,
  state,
  selections,
  onSelect,
  onRemove,
}: {
  model: PickerModel;
  state: PickerState;
  selections: PluginMap;
  onSelect: (id: string) => void;
  onRemove: (id: string) => void;
}) {
  if (!state.credential) return <p class="notice">There is no catalog to browse yet: choose the harness and its credential first.</p>;
  const pageLabel = `Page ${state.pageIndex + 1}`;
  return (
    <>
      {/* biome-ignore lint/a11y/useSemanticElements: the form itself is the search landmark; a <search> wrapper would add an element for the same semantics */}
      <form
        role="search"
        aria-label="Plugin catalog search"
        class="picker-search"
        onSubmit={(event) => {
          // Enter asks at once, without waiting for the typing pause ([C-3]).
          event.preventDefault();
          model.submitQuery();
        }}
      >
        <label for="picker-query">Search plugins</label>
        <input id="picker-query" type="search" value={state.query} autocomplete="off" onInput={(event) => model.typeQuery(event.currentTarget.value)} />
        <button type="submit">Search</button>
      </form>
      {state.setup ? (
        <div class="notice">
          <p>{state.setup.message}</p>
          {state.setup.links.length > 0 ? (
            <ul>
              {state.setup.links.map((link) => (
                // Only plain HTTPS links, the same rule as logos: any other scheme is shown as text, not followed.
                <li key={link.url}>
                  {isPlainHttpsUrl(link.url) ? (
                    <a href={link.url} target="_blank" rel="noopener noreferrer">
                      {link.label}
                    </a>
                  ) : (
                    link.label
                  )}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <p role="status" class="small">
        {statusWords(state)}
      </p>
      {state.status === 'error' && state.error ? (
        <ErrorMessage error={new ApiError(0, state.error.code, state.error.message, [], state.error.requestId)} context="The catalog could not be read" />
      ) : null}
      {state.entries.length > 0 && state.status !== 'error' ? (
        <ul class="card-grid" aria-label={`Plugins, ${pageLabel.toLowerCase()}`} aria-busy={state.status === 'loading' ? 'true' : undefined}>
          {state.entries.map((entry, index) => (
            <PluginCard
              key={entry.id}
              entry={entry}
              index={index}
              configured={Object.hasOwn(selections, entry.id)}
              onLoadTools={() => model.loadTools(entry.id)}
              onSelect={() => onSelect(entry.id)}
              onRemove={() => onRemove(entry.id)}
            />
          ))}
        </ul>
      ) : null}
      <nav class="button-row" aria-label="Catalog pages">
        <button type="button" onClick={() => model.previousPage()} disabled={!state.hasPreviousPage || state.status === 'loading'}>
          Previous page
        </button>
        <span>{pageLabel}</span>
        <button type="button" onClick={() => model.nextPage()} disabled={!state.hasNextPage}>
          Next page
        </button>
      </nav>
    </>
  );
}

/** Loading, empty and loaded in words for the live region; errors have their own alert. */
function statusWords(state: PickerState): string {
  if (state.status === 'loading') return state.query ? `Searching for “${state.query}”…` : 'Loading plugins…';
  if (state.status === 'loaded' && state.entries.length === 0) return state.query ? `No plugin matches “${state.query}”.` : 'This catalog has no plugins.';
  if (state.status === 'loaded') return state.entries.length === 1 ? '1 plugin on this page.' : `${state.entries.length} plugins on this page.`;
  return '';
}

function ConfiguredView({
  keys,
  names,
  onRemove,
  fallbackFocus,
}: {
  keys: readonly string[];
  names: ReadonlyMap<string, string>;
  onRemove: (id: string) => void;
  fallbackFocus: RefObject<HTMLButtonElement>;
}) {
  const list = useRef<HTMLUListElement>(null);
  // The row index whose Remove was pressed: after that row is gone, focus moves to the row now in
  // its place (or the last one), or to the "Configured" view button when none is left — never <body>.
  const removedAt = useRef<number | null>(null);
  useEffect(() => {
    const index = removedAt.current;
    if (index === null) return;
    removedAt.current = null;
    const buttons = list.current ? [...list.current.querySelectorAll<HTMLButtonElement>('button')] : [];
    const next = buttons[Math.min(index, buttons.length - 1)];
    if (next) next.focus();
    else fallbackFocus.current?.focus();
  }, [keys.length]);
  if (keys.length === 0) return <p>No plugins configured yet.</p>;
  return (
    <ul class="configured-list" aria-label="Configured plugins" ref={list}>
      {keys.map((key, index) => {
        const name = names.get(key) ?? key;
        return (
          <li key={key}>
            <span>{name}</span> <code class="small">{key}</code>{' '}
            <button
              type="button"
              onClick={() => {
                removedAt.current = index;
                onRemove(key);
              }}
            >
              Remove {name}
            </button>
          </li>
        );
      })}
    </ul>
  );
}
