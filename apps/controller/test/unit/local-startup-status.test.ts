import { describe, expect, it } from 'vitest';
import type { PluginWarning, StartupStatus } from '@occ/contracts';
import { newId } from '../../src/core/ids.ts';
import { judgeStatus } from '../../src/drivers/compute/runtime-contract/startup-status.ts';
import { newHandle } from '../../src/drivers/compute/local/runtime-handle.ts';
import type { AgentPaths, RevisionPaths } from '../../src/drivers/compute/local/layout.ts';

/** How the local driver judges a runtime's startup status: pure, no process. */
const revisionId = newId('agent_revision');
const startupId = 'startup-0123456789abcdef';
// nostr is selected but disabled: it is never installed and readiness does not wait for it.
const plugins = { diffs: { enabled: true }, browser: { enabled: true }, nostr: { enabled: false } };
const handle = newHandle({ namespaceId: newId('namespace'), agentId: newId('agent') }, revisionId, {} as RevisionPaths, {} as AgentPaths, plugins);
const expected = { revisionId, startupId, selections: handle.selections, enabled: handle.enabled };

function ready(installed: string[], failures: PluginWarning[] = []): StartupStatus {
  return { revisionId, startupId, phase: 'ready', plugins: installed, failures, gatewayPort: 18789, error: null };
}

describe('local ComputeDriver: judging a startup status', () => {
  it('a handle counts every admitted selection, and only the enabled ones as enabled', () => {
    expect([...handle.selections].sort()).toEqual(['browser', 'diffs', 'nostr']);
    expect([...handle.enabled].sort()).toEqual(['browser', 'diffs']);
  });

  it('[S-2] ready when every enabled selection is installed or failed', () => {
    expect(judgeStatus(ready(['diffs', 'browser']), expected)).toEqual({ kind: 'ready', gatewayPort: 18789, warnings: [], startupId, loaded: null });
    const failure = { pluginId: 'browser', code: 'PLUGIN_INSTALL_FAILED' } as const;
    expect(judgeStatus(ready(['diffs'], [failure]), expected)).toEqual({ kind: 'ready', gatewayPort: 18789, warnings: [failure], startupId, loaded: null });
  });

  it('[S-2] what the gateway said it runs travels with a ready status; a malformed account of it is untrusted', () => {
    const loaded = {
      plugins: [
        { id: 'diffs', tools: ['diffs'] },
        { id: 'openai', tools: [] },
      ],
      coreTools: ['read'],
      scheduledJobs: [],
    };
    expect(judgeStatus({ ...ready(['diffs', 'browser']), loaded }, expected)).toMatchObject({ kind: 'ready', loaded });
    expect(judgeStatus({ ...ready(['diffs', 'browser']), loaded: { plugins: 'all' } }, expected)).toEqual({ kind: 'untrusted' });
  });

  it('a trusted status carries its typed progress in every phase, naming only selections of the revision; a malformed progress is untrusted', () => {
    const at = '2026-12-05T10:00:00.000Z';
    const steps = [
      { at, step: 'plan' },
      { at, step: 'install', pluginId: 'diffs', result: 'done' },
      { at, step: 'install', pluginId: 'someone-else', result: 'done' },
      { at, step: 'gateway' },
    ] as const;
    const kept = { startupId, steps: [steps[0], steps[1], steps[3]] };
    expect(judgeStatus({ ...ready(['diffs', 'browser']), progress: [...steps] }, expected)).toMatchObject({ kind: 'ready', progress: kept });
    const preparing: StartupStatus = { revisionId, startupId, phase: 'preparing', plugins: [], failures: [], gatewayPort: null, error: null, progress: [steps[0]] };
    expect(judgeStatus(preparing, expected)).toEqual({ kind: 'starting', progress: { startupId, steps: [steps[0]] } });
    const failed: StartupStatus = {
      ...preparing,
      phase: 'failed',
      error: { code: 'PLUGIN_VERIFICATION_FAILED', message: 'x' },
      progress: [steps[0], { at, code: 'PLUGIN_VERIFICATION_FAILED' }],
    };
    expect(judgeStatus(failed, expected)).toEqual({
      kind: 'failed',
      code: 'PLUGIN_VERIFICATION_FAILED',
      progress: { startupId, steps: [steps[0], { at, code: 'PLUGIN_VERIFICATION_FAILED' }] },
    });
    // A status from before progress existed is judged as before.
    expect(judgeStatus(ready(['diffs', 'browser']), expected)).not.toHaveProperty('progress');
    for (const bad of [
      { at, step: 'exfiltrate' },
      { at: 'yesterday', step: 'plan' },
      { at, step: 'install', pluginId: 'diffs', result: 'maybe' },
      { at, message: 'hi' },
    ])
      expect(judgeStatus({ ...ready(['diffs', 'browser']), progress: [bad] }, expected), JSON.stringify(bad)).toEqual({ kind: 'untrusted' });
  });

  it('[S-2] a ready status silent about an enabled selection is untrusted', () => {
    expect(judgeStatus(ready(['diffs']), expected)).toEqual({ kind: 'untrusted' });
    expect(judgeStatus(ready([]), expected)).toEqual({ kind: 'untrusted' });
    expect(judgeStatus(ready([], [{ pluginId: 'nostr', code: 'PLUGIN_INSTALL_FAILED' }]), expected)).toEqual({ kind: 'untrusted' });
  });

  it('[S-2] a disabled selection is never installed: listing it as installed is untrusted', () => {
    expect(judgeStatus(ready(['diffs', 'browser', 'nostr']), expected)).toEqual({ kind: 'untrusted' });
  });

  it('a disabled selection may still carry an admitted failure (its install was tried)', () => {
    const failure = { pluginId: 'nostr', code: 'PLUGIN_INSTALL_FAILED' } as const;
    expect(judgeStatus(ready(['diffs', 'browser'], [failure]), expected)).toMatchObject({ kind: 'ready', warnings: [failure] });
  });

  it('an Agent without selections is ready with nothing installed; with nothing enabled too', () => {
    const none = newHandle(handle.agent, revisionId, {} as RevisionPaths, {} as AgentPaths, {});
    expect(judgeStatus(ready([]), { ...expected, selections: none.selections, enabled: none.enabled })).toMatchObject({ kind: 'ready' });
    const off = newHandle(handle.agent, revisionId, {} as RevisionPaths, {} as AgentPaths, { nostr: { enabled: false } });
    expect(judgeStatus(ready([]), { ...expected, selections: off.selections, enabled: off.enabled })).toMatchObject({ kind: 'ready' });
  });

  it('phases before and after readiness are judged as before', () => {
    expect(judgeStatus({ ...ready([]), phase: 'preparing', gatewayPort: null }, expected)).toEqual({ kind: 'starting' });
    expect(judgeStatus({ ...ready([]), phase: 'failed', gatewayPort: null, error: { code: 'PLUGIN_VERIFICATION_FAILED', message: 'x' } }, expected)).toEqual({
      kind: 'failed',
      code: 'PLUGIN_VERIFICATION_FAILED',
    });
    expect(judgeStatus({ ...ready(['diffs', 'browser']), startupId: 'another-startup-0000' }, expected)).toEqual({ kind: 'untrusted' });
  });

  it('a failure detail is kept only when it names a selection of this revision, and only in its closed shape', () => {
    const failed = (detail: unknown) => ({ ...ready([]), phase: 'failed', gatewayPort: null, error: { code: 'PLUGIN_POLICY_INVALID', message: 'x', detail } });
    const detail = { plugin: 'diffs', violation: { code: 'INVALID_VALUE', at: '/tools/made.up' } };
    expect(judgeStatus(failed(detail), expected)).toEqual({ kind: 'failed', code: 'PLUGIN_POLICY_INVALID', detail });
    // Another key than the revision's is dropped, the code kept.
    expect(judgeStatus(failed({ ...detail, plugin: 'not-selected' }), expected)).toEqual({ kind: 'failed', code: 'PLUGIN_POLICY_INVALID' });
    // Outside the contract (free text, an unknown code, extra fields), the whole status is untrusted.
    for (const odd of [
      { ...detail, why: 'free text' },
      { ...detail, violation: { code: 'MADE_UP', at: '' } },
      { ...detail, violation: { code: 'INVALID_VALUE', at: 'no-slash' } },
    ]) {
      expect(judgeStatus(failed(odd), expected)).toEqual({ kind: 'untrusted' });
    }
  });
});
