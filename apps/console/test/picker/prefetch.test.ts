import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PickerModel } from '../../src/picker/picker-model.ts';
import { BOUND_AGENT, CREATE_PAT, NS, OTHER_PAT, page, SECRET_REF, scriptedApi } from './scripted-api.ts';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('picker prefetch and reuse', () => {
  it('[C-1] a create-time PAT (Secret reference) prefetches page one before the picker is opened', async () => {
    const { api, calls } = scriptedApi();
    const picker = new PickerModel({ api });
    expect(calls).toHaveLength(0);
    picker.setCredential(CREATE_PAT);
    expect(picker.state.open).toBe(false);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.operationId).toBe('discoverAgentPlugins');
    expect(calls[0]!.params).toEqual({ ns: NS });
    // Page one: no cursor, no query; the credential is a reference, never a token.
    expect(calls[0]!.body).toEqual({ harness: 'codex', secretRef: SECRET_REF });
    await calls[0]!.answer(page(['linear']));
    expect(picker.state.status).toBe('loaded');
    expect(picker.state.entries.map((e) => e.id)).toEqual(['linear']);
  });

  it('[C-1] an existing Agent with a bound PAT prefetches page one through its own route, with no credential in the body', () => {
    const { api, calls } = scriptedApi();
    const picker = new PickerModel({ api });
    picker.setCredential(BOUND_AGENT);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.operationId).toBe('discoverExistingAgentPlugins');
    expect(calls[0]!.params).toEqual({ ns: NS, id: BOUND_AGENT.agentId });
    expect(calls[0]!.body).toEqual({});
  });

  it('[C-2] opening the picker reuses the prefetched page without a second request', async () => {
    const { api, calls } = scriptedApi();
    const picker = new PickerModel({ api });
    picker.setCredential(CREATE_PAT);
    await calls[0]!.answer(page(['linear', 'github']));
    picker.openPicker();
    expect(calls).toHaveLength(1);
    expect(picker.state.open).toBe(true);
    expect(picker.state.entries.map((e) => e.id)).toEqual(['linear', 'github']);
  });

  it('[C-2] opening while the prefetch is still in flight waits for it instead of asking again', async () => {
    const { api, calls } = scriptedApi();
    const picker = new PickerModel({ api });
    picker.setCredential(CREATE_PAT);
    picker.openPicker();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.signal.aborted).toBe(false);
    await calls[0]!.answer(page(['linear']));
    expect(picker.state.entries.map((e) => e.id)).toEqual(['linear']);
  });

  it('[C-2] a credential change clears discovery results but keeps the selections', async () => {
    const { api, calls } = scriptedApi();
    const picker = new PickerModel({ api, selections: { saved: { enabled: true, toolDefaults: { approval: 'all_actions' } } } });
    picker.setCredential(CREATE_PAT);
    await calls[0]!.answer(page(['linear']));
    expect(picker.select('linear')).toBe(true);
    picker.setCredential(OTHER_PAT);
    expect(picker.state.entries).toEqual([]);
    expect(picker.state.status).toBe('loading');
    expect(picker.state.selections).toEqual({ saved: { enabled: true, toolDefaults: { approval: 'all_actions' } }, linear: { enabled: true } });
    // The new catalog is fetched with the new credential.
    expect(calls).toHaveLength(2);
    expect(calls[1]!.body).toEqual({ harness: 'codex', secretRef: OTHER_PAT.secretRef });
  });

  it('no credential, no request: a create form without a harness credential yet asks nothing', () => {
    const { api, calls } = scriptedApi();
    const picker = new PickerModel({ api });
    picker.openPicker();
    picker.typeQuery('lin');
    vi.advanceTimersByTime(1000);
    expect(calls).toHaveLength(0);
    expect(picker.state.status).toBe('idle');
  });
});
