import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PickerModel, SEARCH_DEBOUNCE_MS } from '../../src/picker/picker-model.ts';
import { CREATE_PAT, page, scriptedApi } from './scripted-api.ts';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

async function openedPicker() {
  const scripted = scriptedApi();
  const picker = new PickerModel({ api: scripted.api });
  picker.setCredential(CREATE_PAT);
  await scripted.calls[0]!.answer(page(['first'], 'cursor-2'));
  picker.openPicker();
  return { picker, ...scripted };
}

describe('picker search, paging and stale answers', () => {
  it(`[C-3] typing marks loading at once and sends the query only after ${SEARCH_DEBOUNCE_MS} ms without typing`, async () => {
    const { picker, calls } = await openedPicker();
    picker.typeQuery('l');
    expect(picker.state.status).toBe('loading');
    vi.advanceTimersByTime(200);
    picker.typeQuery('li');
    vi.advanceTimersByTime(SEARCH_DEBOUNCE_MS - 1);
    expect(calls).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.body).toEqual({ harness: 'codex', secretRef: CREATE_PAT.secretRef, q: 'li' });
    await calls[1]!.answer(page(['linear']));
    expect(picker.state.status).toBe('loaded');
    expect(picker.state.entries.map((e) => e.id)).toEqual(['linear']);
  });

  it('[C-3] an older answer arriving during the debounce is invalidated before the delay (and its request aborted)', async () => {
    const { picker, calls } = await openedPicker();
    picker.typeQuery('git');
    picker.submitQuery();
    expect(calls).toHaveLength(2);
    picker.typeQuery('gitl');
    expect(calls[1]!.signal.aborted).toBe(true);
    // The transport answers anyway: the model must still drop it.
    await calls[1]!.answer(page(['github']));
    expect(picker.state.status).toBe('loading');
    expect(picker.state.entries.map((e) => e.id)).toEqual(['first']);
    vi.advanceTimersByTime(SEARCH_DEBOUNCE_MS);
    await calls[2]!.answer(page(['gitlab']));
    expect(picker.state.entries.map((e) => e.id)).toEqual(['gitlab']);
  });

  it('[C-3] Enter sends the query at once and cancels the pending debounce', async () => {
    const { picker, calls } = await openedPicker();
    picker.typeQuery('slack');
    picker.submitQuery();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.body.q).toBe('slack');
    vi.advanceTimersByTime(SEARCH_DEBOUNCE_MS * 3);
    expect(calls).toHaveLength(2);
  });

  it('[C-3] Next and Previous go out at once with the server cursors; Previous replays the stored one', async () => {
    const { picker, calls } = await openedPicker();
    picker.nextPage();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.body.cursor).toBe('cursor-2');
    await calls[1]!.answer(page(['second'], 'cursor-3'));
    expect(picker.state.pageIndex).toBe(1);
    picker.nextPage();
    expect(calls[2]!.body.cursor).toBe('cursor-3');
    await calls[2]!.answer(page(['third'], null));
    expect(picker.state.hasNextPage).toBe(false);
    picker.previousPage();
    expect(calls).toHaveLength(4);
    expect(calls[3]!.body.cursor).toBe('cursor-2');
    await calls[3]!.answer(page(['second'], 'cursor-3'));
    picker.previousPage();
    expect(calls[4]!.body).not.toHaveProperty('cursor');
    await calls[4]!.answer(page(['first'], 'cursor-2'));
    expect(picker.state.pageIndex).toBe(0);
    expect(picker.state.hasPreviousPage).toBe(false);
  });

  it('[C-3] answers arriving out of order: the older generation is ignored', async () => {
    const { picker, calls } = await openedPicker();
    picker.typeQuery('a');
    picker.submitQuery();
    picker.typeQuery('ab');
    picker.submitQuery();
    expect(calls).toHaveLength(3);
    await calls[2]!.answer(page(['ab-result']));
    await calls[1]!.answer(page(['a-result']));
    expect(picker.state.entries.map((e) => e.id)).toEqual(['ab-result']);
    expect(picker.state.query).toBe('ab');
  });

  it('a failed page shows the API error code and request id, and a stale failure is ignored', async () => {
    const { ApiError } = await import('@occ/contracts/client');
    const { picker, calls } = await openedPicker();
    picker.submitQuery();
    picker.typeQuery('x');
    await calls[1]!.fail(new ApiError(503, 'PLUGIN_DISCOVERY_UNAVAILABLE', 'Plugin discovery is unavailable.', [], 'req-1'));
    expect(picker.state.error).toBeNull();
    picker.submitQuery();
    await calls[2]!.fail(new ApiError(429, 'PLUGIN_DISCOVERY_RATE_LIMITED', 'Rate limited.', [], 'req-2'));
    expect(picker.state.status).toBe('error');
    expect(picker.state.error).toEqual({ code: 'PLUGIN_DISCOVERY_RATE_LIMITED', message: 'Rate limited.', requestId: 'req-2' });
  });
});
