import type { PluginMap } from '@occ/contracts';
import type { ApiClient } from '@occ/contracts/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { DiscoveryCredential } from '../picker/discovery-api.ts';
import { PickerModel, type PickerState } from '../picker/picker-model.ts';
import type { KnownTool } from './selection-editor.tsx';

/** What the editor remembers of catalog entries it has seen, so configured plugins show names and tools. */
export interface CatalogMemory {
  names: ReadonlyMap<string, string>;
  tools: ReadonlyMap<string, readonly KnownTool[]>;
}

/**
 * One PickerModel for the editor's lifetime: created once with the typed API, told about every
 * credential change (selections are kept by the model; discovery is reset and page one
 * prefetched at once — [C-1], [C-2]), and disposed when the editor goes away, which aborts
 * whatever it still has in flight ([C-4]).
 */
export function usePicker(api: ApiClient, credential: DiscoveryCredential | null, selections: PluginMap): { model: PickerModel; state: PickerState; memory: CatalogMemory } {
  const [model] = useState(() => new PickerModel({ api, selections }));
  const [state, setState] = useState(model.state);
  const memory = useRef<{ names: Map<string, string>; tools: Map<string, KnownTool[]> }>({ names: new Map(), tools: new Map() });

  useEffect(() => {
    const unsubscribe = model.subscribe((next) => {
      remember(memory.current, next);
      setState(next);
    });
    return () => {
      unsubscribe();
      model.dispose();
    };
  }, [model]);

  // The caller builds a new credential object on each render; only a different value is a change.
  const credentialKey = credential === null ? 'none' : JSON.stringify(credential);
  const credentialRef = useRef(credential);
  credentialRef.current = credential;
  useEffect(() => {
    // Tools seen under another credential may not be that catalog's: forget them with it.
    memory.current.tools.clear();
    model.setCredential(credentialRef.current);
  }, [model, credentialKey]);

  return { model, state, memory: memory.current };
}

function remember(memory: { names: Map<string, string>; tools: Map<string, KnownTool[]> }, state: PickerState): void {
  for (const entry of state.entries) {
    memory.names.set(entry.id, entry.name);
    if (entry.tools !== null)
      memory.tools.set(
        entry.id,
        entry.tools.map((tool) => ({ id: tool.id, name: tool.name })),
      );
  }
}
