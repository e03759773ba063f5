import type { PluginCatalogEntry, PluginCatalogPage, PluginMap } from '@occ/contracts';
import { ApiError } from '@occ/contracts/client';
import { fetchDetails, fetchPage, type DiscoveryApi, type DiscoveryCredential } from './discovery-api.ts';
import { CONNECTION_STATUS, isSelectable, pluginLogo, type PluginLogo } from './entry-presentation.ts';
import { deselect, initialSelections, select, type Selections } from './selections.ts';
import { systemTimers, type Timers } from './timers.ts';

/**
 * The plugin picker as a framework-free state machine (issue 13, [C-1]…[C-7]). A view subscribes
 * and renders `state`; every user action is a method. Two counters keep responses honest:
 * `pageGeneration` (any newer page request, or a typed keystroke, makes older page answers
 * stale) and `credentialEpoch` (a catalog belongs to one credential: tool details for an old one
 * are dropped). Stale answers are ignored even if the transport ignored its AbortSignal.
 */

export const SEARCH_DEBOUNCE_MS = 300;

export type LoadStatus = 'idle' | 'loading' | 'loaded' | 'error';
export type ToolsStatus = 'unknown' | 'loading' | 'loaded' | 'error';

export interface PickerError {
  code: string;
  message: string;
  requestId: string | undefined;
}

export interface PickerEntry {
  id: string;
  name: string;
  description: string | undefined;
  available: boolean;
  unavailableReason: string | undefined;
  tools: PluginCatalogEntry['tools'];
  toolsStatus: ToolsStatus;
  selectable: boolean;
  selected: boolean;
  connection: typeof CONNECTION_STATUS;
  logo: PluginLogo;
}

export interface PickerState {
  credential: DiscoveryCredential | null;
  open: boolean;
  view: 'available' | 'configured';
  query: string;
  status: LoadStatus;
  error: PickerError | null;
  entries: PickerEntry[];
  pageIndex: number;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  setup: PluginCatalogPage['setup'];
  /** The Agent's `plugins` map as the picker would save it. */
  selections: PluginMap;
}

export interface PickerOptions {
  api: DiscoveryApi;
  timers?: Timers;
  /** An existing Agent's saved selections (kept across every credential change). */
  selections?: PluginMap;
}

interface LoadedPage {
  entries: PluginCatalogEntry[];
  nextCursor: string | null;
  setup: PluginCatalogPage['setup'];
}

interface ToolsLoad {
  status: 'loading' | 'error';
  controller: AbortController;
}

export class PickerModel {
  private readonly api: DiscoveryApi;
  private readonly timers: Timers;
  private readonly listeners = new Set<(state: PickerState) => void>();

  private credential: DiscoveryCredential | null = null;
  private open = false;
  private view: PickerState['view'] = 'available';
  private query = '';
  private status: LoadStatus = 'idle';
  private error: PickerError | null = null;
  private page: LoadedPage | null = null;
  private pageIndex = 0;
  /** cursors[i] fetched page i (undefined: page one); Previous replays them. */
  private cursors: (string | undefined)[] = [undefined];
  private selections: Selections;
  /** Tools loaded through the details route, by entry id; they outlive page changes of the same credential. */
  private loadedTools = new Map<string, NonNullable<PluginCatalogEntry['tools']>>();
  private toolsLoads = new Map<string, ToolsLoad>();

  private pageGeneration = 0;
  private credentialEpoch = 0;
  private pageController: AbortController | null = null;
  private debounce: unknown = undefined;
  private disposed = false;
  private snapshot: PickerState;

  constructor(options: PickerOptions) {
    this.api = options.api;
    this.timers = options.timers ?? systemTimers;
    this.selections = initialSelections(options.selections);
    this.snapshot = this.buildState();
  }

  get state(): PickerState {
    return this.snapshot;
  }

  subscribe(listener: (state: PickerState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * A new credential (or none: `null`) means a different catalog: results, cursors and tool
   * loads go, in-flight requests are aborted; selections stay ([C-2], [C-4]). Page one is
   * prefetched at once, picker open or not, so opening it shows entries without waiting ([C-1]).
   */
  setCredential(credential: DiscoveryCredential | null): void {
    if (this.disposed) return;
    this.cancelRequests();
    this.credentialEpoch++;
    this.credential = credential;
    this.page = null;
    this.loadedTools = new Map();
    // The search text stays: page one of the new catalog is fetched for it.
    this.resetPaging();
    this.status = 'idle';
    this.error = null;
    if (credential) this.loadPage(0);
    else this.emit();
  }

  /** Opening reuses whatever page is loaded or loading (the prefetch) and asks only when there is none ([C-2]). */
  openPicker(): void {
    if (this.disposed) return;
    this.open = true;
    this.view = 'available';
    this.resumeIfIdle();
    this.emit();
  }

  /** Closing abandons every request: nobody is looking at the answers ([C-4]). */
  closePicker(): void {
    if (this.disposed || !this.open) return;
    this.open = false;
    this.cancelRequests();
    this.emit();
  }

  /** The configured view lists selections, not the catalog: catalog requests are abandoned ([C-4]). */
  showConfigured(): void {
    if (this.disposed) return;
    this.view = 'configured';
    this.cancelRequests();
    this.emit();
  }

  showAvailable(): void {
    if (this.disposed) return;
    this.view = 'available';
    this.resumeIfIdle();
    this.emit();
  }

  /**
   * A keystroke invalidates older answers and shows `loading` now; the request waits for the
   * typing to pause ([C-3]). Invalidating before the delay means the previous query's answer,
   * arriving during the pause, can never fill the list for the new text.
   */
  typeQuery(text: string): void {
    if (this.disposed) return;
    this.query = text;
    this.cancelRequests();
    this.resetPaging();
    this.error = null;
    // Without a credential there is no catalog to search: the text is kept for when one comes.
    if (this.credential) {
      this.status = 'loading';
      this.debounce = this.timers.setTimeout(() => this.searchNow(), SEARCH_DEBOUNCE_MS);
    }
    this.emit();
  }

  /** Enter: the user asked explicitly, so no debounce ([C-3]). */
  submitQuery(): void {
    if (this.disposed) return;
    this.searchNow();
  }

  nextPage(): void {
    if (this.disposed || this.status !== 'loaded' || !this.page?.nextCursor) return;
    this.loadPage(this.pageIndex + 1, this.page.nextCursor);
  }

  previousPage(): void {
    if (this.disposed || this.pageIndex === 0) return;
    this.loadPage(this.pageIndex - 1, this.cursors[this.pageIndex - 1]);
  }

  /** Loads an entry's tool inventory when the page left it unknown (`null`) ([C-5]). */
  loadTools(entryId: string): void {
    if (this.disposed || !this.credential) return;
    const entry = this.page?.entries.find((candidate) => candidate.id === entryId);
    if (!entry || entry.tools !== null || this.loadedTools.has(entryId) || this.toolsLoads.get(entryId)?.status === 'loading') return;
    const controller = new AbortController();
    const epoch = this.credentialEpoch;
    this.toolsLoads.set(entryId, { status: 'loading', controller });
    this.emit();
    fetchDetails(this.api, this.credential, entry.remoteId ?? entry.id, controller.signal).then(
      (details) => {
        if (epoch !== this.credentialEpoch || this.toolsLoads.get(entryId)?.controller !== controller) return;
        this.toolsLoads.delete(entryId);
        // A details answer without tools leaves them unknown; the entry stays unselectable.
        if (details.tools !== null) this.loadedTools.set(entryId, details.tools);
        this.emit();
      },
      () => {
        if (epoch !== this.credentialEpoch || this.toolsLoads.get(entryId)?.controller !== controller) return;
        this.toolsLoads.set(entryId, { status: 'error', controller });
        this.emit();
      },
    );
  }

  /** Adds an entry of the current page; refused (false) unless it is selectable now. */
  select(entryId: string): boolean {
    if (this.disposed) return false;
    const entry = this.snapshot.entries.find((candidate) => candidate.id === entryId);
    if (!entry?.selectable) return false;
    this.selections = select(this.selections, entryId);
    this.emit();
    return true;
  }

  /** Removes any selection, including ones not on the current page (the configured view). */
  deselect(entryId: string): void {
    if (this.disposed) return;
    this.selections = deselect(this.selections, entryId);
    this.emit();
  }

  /** The view is gone: abort everything and stop notifying ([C-4]). */
  dispose(): void {
    if (this.disposed) return;
    this.cancelRequests();
    this.disposed = true;
    this.listeners.clear();
  }

  private searchNow(): void {
    this.clearDebounce();
    if (!this.credential) return;
    this.resetPaging();
    this.loadPage(0);
  }

  private resumeIfIdle(): void {
    if (this.credential && this.view === 'available' && (this.status === 'idle' || this.status === 'error')) this.loadPage(this.pageIndex, this.cursors[this.pageIndex]);
  }

  private loadPage(index: number, cursor?: string): void {
    const credential = this.credential;
    if (!credential) return;
    this.clearDebounce();
    this.pageController?.abort();
    const controller = new AbortController();
    this.pageController = controller;
    const generation = ++this.pageGeneration;
    this.status = 'loading';
    this.error = null;
    this.emit();
    fetchPage(this.api, credential, { q: this.query, cursor }, controller.signal).then(
      (page) => {
        if (generation !== this.pageGeneration) return;
        this.pageController = null;
        this.page = { entries: page.plugins, nextCursor: page.nextCursor, setup: page.setup };
        this.pageIndex = index;
        this.cursors = [...this.cursors.slice(0, index), cursor];
        this.status = 'loaded';
        this.emit();
      },
      (error: unknown) => {
        if (generation !== this.pageGeneration) return;
        this.pageController = null;
        this.status = 'error';
        this.error = describeError(error);
        this.emit();
      },
    );
  }

  /**
   * Aborts the page request and pending tool loads and forgets the debounce; a page that was
   * loading goes back to idle so opening (or returning to Available) asks again.
   */
  private cancelRequests(): void {
    this.clearDebounce();
    this.pageGeneration++;
    this.pageController?.abort();
    this.pageController = null;
    if (this.status === 'loading') this.status = 'idle';
    for (const load of this.toolsLoads.values()) load.controller.abort();
    this.toolsLoads.clear();
  }

  private clearDebounce(): void {
    if (this.debounce === undefined) return;
    this.timers.clearTimeout(this.debounce);
    this.debounce = undefined;
  }

  private resetPaging(): void {
    this.pageIndex = 0;
    this.cursors = [undefined];
  }

  private emit(): void {
    if (this.disposed) return;
    this.snapshot = this.buildState();
    for (const listener of this.listeners) listener(this.snapshot);
  }

  private buildState(): PickerState {
    const selected = this.selections.map;
    const entries = (this.page?.entries ?? []).map((entry): PickerEntry => {
      const tools = entry.tools ?? this.loadedTools.get(entry.id) ?? null;
      const load = this.toolsLoads.get(entry.id);
      return {
        id: entry.id,
        name: entry.name,
        description: entry.description,
        available: entry.available,
        unavailableReason: entry.unavailableReason,
        tools,
        toolsStatus: tools !== null ? 'loaded' : (load?.status ?? 'unknown'),
        selectable: isSelectable({ available: entry.available, selectableWithoutTools: entry.selectableWithoutTools, tools }),
        selected: selected[entry.id]?.enabled === true,
        connection: CONNECTION_STATUS,
        logo: pluginLogo(entry.name, entry.logoUrl),
      };
    });
    return {
      credential: this.credential,
      open: this.open,
      view: this.view,
      query: this.query,
      status: this.status,
      error: this.error,
      entries,
      pageIndex: this.pageIndex,
      hasNextPage: this.status === 'loaded' && Boolean(this.page?.nextCursor),
      hasPreviousPage: this.pageIndex > 0,
      setup: this.page?.setup,
      selections: selected,
    };
  }
}

/** Errors become code + message (+ request id) only: fixed server text, never a stack or body. */
function describeError(error: unknown): PickerError {
  if (error instanceof ApiError) return { code: error.code, message: error.message, requestId: error.requestId };
  return { code: 'UNREACHABLE', message: 'The server could not be reached.', requestId: undefined };
}
