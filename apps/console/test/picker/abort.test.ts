import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PickerModel, SEARCH_DEBOUNCE_MS } from '../../src/picker/picker-model.ts';
import { BOUND_AGENT, CREATE_PAT, OTHER_PAT, page, scriptedApi } from './scripted-api.ts';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** An open picker with a page request in flight (a search sent by Enter) and a tool-details load in flight. */
async function busyPicker() {
  const scripted = scriptedApi();
  const picker = new PickerModel({ api: scripted.api });
  picker.setCredential(CREATE_PAT);
  await scripted.calls[0]!.answer(page(['unknown-tools'], null, { tools: null }));
  picker.openPicker();
  picker.typeQuery('lin');
  picker.submitQuery();
  // The previous page stays on screen while the search runs; its entry's tools can be asked for.
  picker.loadTools('unknown-tools');
  const [, search, details] = scripted.calls;
  expect(details!.operationId).toBe('discoverAgentPluginDetails');
  expect(search!.body.q).toBe('lin');
  expect([details!.signal.aborted, search!.signal.aborted]).toEqual([false, false]);
  return { picker, details: details!, search: search!, ...scripted };
}

describe('picker aborts', () => {
  it('[C-4] closing the picker aborts its page and tool requests, and their late answers change nothing', async () => {
    const { picker, details, search } = await busyPicker();
    picker.closePicker();
    expect(search.signal.aborted).toBe(true);
    expect(details.signal.aborted).toBe(true);
    await search.answer(page(['late']));
    expect(picker.state.entries.map((e) => e.id)).toEqual(['unknown-tools']);
    expect(picker.state.status).toBe('idle');
  });

  it('[C-4] closing during the debounce sends nothing later', async () => {
    const { api, calls } = scriptedApi();
    const picker = new PickerModel({ api });
    picker.setCredential(BOUND_AGENT);
    await calls[0]!.answer(page(['a']));
    picker.openPicker();
    picker.typeQuery('zzz');
    picker.closePicker();
    vi.advanceTimersByTime(SEARCH_DEBOUNCE_MS * 2);
    expect(calls).toHaveLength(1);
  });

  it('[C-4] switching to the configured view aborts catalog requests; returning to Available asks again', async () => {
    const { picker, details, search, calls } = await busyPicker();
    picker.showConfigured();
    expect(search.signal.aborted).toBe(true);
    expect(details.signal.aborted).toBe(true);
    picker.showAvailable();
    expect(calls).toHaveLength(4);
    expect(calls[3]!.body.q).toBe('lin');
  });

  it("[C-4] a credential change aborts the old credential's requests", async () => {
    const { picker, details, search, calls } = await busyPicker();
    picker.setCredential(OTHER_PAT);
    expect(search.signal.aborted).toBe(true);
    expect(details.signal.aborted).toBe(true);
    // A late tool answer for the old credential does not leak into the new catalog.
    await calls[3]!.answer(page(['unknown-tools'], null, { tools: null }));
    await details.answer({ id: 'unknown-tools', name: 'x', available: true, tools: [] });
    expect(picker.state.entries[0]!.tools).toBeNull();
    expect(picker.state.entries[0]!.selectable).toBe(false);
  });

  it('[C-4] disposing the view aborts everything and stops notifying', async () => {
    const { picker, details, search } = await busyPicker();
    const listener = vi.fn();
    picker.subscribe(listener);
    picker.dispose();
    expect(search.signal.aborted).toBe(true);
    expect(details.signal.aborted).toBe(true);
    await search.answer(page(['late']));
    expect(listener).not.toHaveBeenCalled();
  });
});
