import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { initials, pluginLogo } from '../../src/picker/entry-presentation.ts';
import { PickerModel } from '../../src/picker/picker-model.ts';
import { BOUND_AGENT, CREATE_PAT, entry, scriptedApi } from './scripted-api.ts';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const TOOL = { id: 'create_issue', ownerId: 'linear', name: 'Create issue' };

async function pickerWith(...entries: ReturnType<typeof entry>[]) {
  const scripted = scriptedApi();
  const picker = new PickerModel({ api: scripted.api });
  picker.setCredential(CREATE_PAT);
  await scripted.calls[0]!.answer({ plugins: entries, nextCursor: null });
  picker.openPicker();
  return { picker, ...scripted };
}

describe('picker entries', () => {
  it('[C-5] tools unknown (null) load on demand through the details route; the entry becomes selectable then', async () => {
    const { picker, calls } = await pickerWith(entry('linear', { remoteId: 'remote-linear', tools: null, selectableWithoutTools: false }));
    expect(picker.state.entries[0]).toMatchObject({ tools: null, toolsStatus: 'unknown', selectable: false });
    expect(picker.select('linear')).toBe(false);
    expect(picker.state.selections).toEqual({});
    picker.loadTools('linear');
    expect(picker.state.entries[0]!.toolsStatus).toBe('loading');
    expect(calls[1]!.operationId).toBe('discoverAgentPluginDetails');
    expect(calls[1]!.body).toEqual({ harness: 'codex', secretRef: CREATE_PAT.secretRef, pluginId: 'remote-linear' });
    picker.loadTools('linear');
    expect(calls).toHaveLength(2);
    await calls[1]!.answer(entry('linear', { tools: [TOOL] }));
    expect(picker.state.entries[0]).toMatchObject({ tools: [TOOL], toolsStatus: 'loaded', selectable: true });
    expect(picker.select('linear')).toBe(true);
    expect(picker.state.selections).toEqual({ linear: { enabled: true } });
  });

  it('[C-5] an existing Agent loads details through its own route; a failed load can be retried', async () => {
    const { api, calls } = scriptedApi();
    const picker = new PickerModel({ api });
    picker.setCredential(BOUND_AGENT);
    await calls[0]!.answer({ plugins: [entry('notion', { tools: null })], nextCursor: null });
    picker.loadTools('notion');
    expect(calls[1]!.operationId).toBe('discoverExistingAgentPluginDetails');
    expect(calls[1]!.body).toEqual({ pluginId: 'notion' });
    await calls[1]!.fail(new Error('network'));
    expect(picker.state.entries[0]).toMatchObject({ toolsStatus: 'error', selectable: false });
    picker.loadTools('notion');
    await calls[2]!.answer(entry('notion', { tools: [] }));
    expect(picker.state.entries[0]).toMatchObject({ tools: [], toolsStatus: 'loaded', selectable: true });
  });

  it('[C-5] selectableWithoutTools entries are selectable while their tools are still unknown', async () => {
    const { picker } = await pickerWith(entry('bundled', { tools: null, selectableWithoutTools: true }));
    expect(picker.state.entries[0]!.selectable).toBe(true);
  });

  it('[C-6] an unsupported release (available: false) is never selectable, even selectable without tools or after its tools load', async () => {
    const { picker, calls } = await pickerWith(
      entry('old', { available: false, unavailableReason: 'This release is not supported.', tools: null, selectableWithoutTools: true }),
      entry('old-with-tools', { available: false, tools: [TOOL] }),
    );
    expect(picker.state.entries.map((e) => e.selectable)).toEqual([false, false]);
    picker.loadTools('old');
    // Even a details answer claiming availability does not override the page's verdict.
    await calls[1]!.answer(entry('old', { available: true, tools: [TOOL] }));
    expect(picker.state.entries[0]).toMatchObject({ toolsStatus: 'loaded', selectable: false, unavailableReason: 'This release is not supported.' });
    expect(picker.select('old')).toBe(false);
    expect(picker.select('old-with-tools')).toBe(false);
    expect(picker.state.selections).toEqual({});
  });

  it("[C-7] every entry's connection is unverified, whatever the catalog says about it", async () => {
    const { picker } = await pickerWith(entry('a'), entry('b', { available: false }), entry('c', { tools: null }));
    expect(picker.state.entries.map((e) => e.connection)).toEqual(['unverified', 'unverified', 'unverified']);
  });

  it('[C-7] an HTTPS logo without userinfo loads with no referrer; anything else falls back to two initials', async () => {
    const { picker } = await pickerWith(
      entry('linear', { name: 'Linear', logoUrl: 'https://cdn.example.com/linear.png' }),
      entry('gh', { name: 'GitHub Issues', logoUrl: 'https://user:secret@cdn.example.com/gh.png' }),
    );
    expect(picker.state.entries[0]!.logo).toEqual({ kind: 'image', src: 'https://cdn.example.com/linear.png', referrerPolicy: 'no-referrer' });
    expect(picker.state.entries[1]!.logo).toEqual({ kind: 'initials', text: 'GI' });
  });

  it('[C-7] http:, javascript:, data:, userinfo and unparsable logo URLs all become initials', () => {
    const fallbacks = [
      'http://cdn.example.com/logo.png',
      'javascript:alert(1)',
      'data:image/svg+xml,<svg/>',
      'https://user@cdn.example.com/logo.png',
      'https://:pw@cdn.example.com/logo.png',
      'not a url',
      '',
    ];
    for (const url of fallbacks) expect(pluginLogo('Slack', url)).toEqual({ kind: 'initials', text: 'SL' });
    expect(pluginLogo('Slack', undefined)).toEqual({ kind: 'initials', text: 'SL' });
  });

  it('initials: first letters of two words, or two letters of one word, uppercased; ? when the name has none', () => {
    expect(initials('google drive')).toBe('GD');
    expect(initials('@openclaw/nostr')).toBe('ON');
    expect(initials('x')).toBe('X');
    expect(initials('Ünïcode')).toBe('ÜN');
    expect(initials('—')).toBe('?');
  });
});
