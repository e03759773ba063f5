import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PickerModel } from '../../src/picker/picker-model.ts';
import { CREATE_PAT, page, scriptedApi } from './scripted-api.ts';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('picker selections as the API plugin map', () => {
  it('a selection is keyed by entry id with { enabled: true } by default', async () => {
    const { api, calls } = scriptedApi();
    const picker = new PickerModel({ api });
    picker.setCredential(CREATE_PAT);
    await calls[0]!.answer(page(['openclaw:@scope/a', 'codex:linear@market']));
    picker.select('openclaw:@scope/a');
    picker.select('codex:linear@market');
    expect(picker.state.selections).toEqual({ 'openclaw:@scope/a': { enabled: true }, 'codex:linear@market': { enabled: true } });
    expect(picker.state.entries.map((e) => e.selected)).toEqual([true, true]);
  });

  it('re-selecting keeps the tool policies it had (saved disabled, or deselected in this session)', async () => {
    const policy = { toolDefaults: { approval: 'write_actions' as const }, tools: { create_issue: { enabled: false } } };
    const { api, calls } = scriptedApi();
    const picker = new PickerModel({ api, selections: { linear: { enabled: false, ...policy }, notion: { enabled: true, approvers: [] } } });
    picker.setCredential(CREATE_PAT);
    await calls[0]!.answer(page(['linear', 'notion']));
    expect(picker.state.entries.map((e) => e.selected)).toEqual([false, true]);
    picker.select('linear');
    expect(picker.state.selections.linear).toEqual({ enabled: true, ...policy });
    picker.deselect('notion');
    expect(picker.state.selections).not.toHaveProperty('notion');
    picker.select('notion');
    expect(picker.state.selections.notion).toEqual({ enabled: true, approvers: [] });
  });

  it('deselecting works for selections that are not on the current page (the configured view)', () => {
    const { api } = scriptedApi();
    const picker = new PickerModel({ api, selections: { elsewhere: { enabled: true } } });
    picker.deselect('elsewhere');
    expect(picker.state.selections).toEqual({});
  });
});
