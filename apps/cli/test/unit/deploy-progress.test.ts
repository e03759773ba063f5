import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { DeploymentEventData } from '@occ/contracts';
import { activityAfter, describeEvent, warningText } from '../../src/deploy/describe-event.ts';
import { createProgressDisplay, progressMode } from '../../src/deploy/progress-display.ts';

const rev = 'rev_00000000-0000-4000-8000-000000000001';
const e = (data: Omit<DeploymentEventData, 'revisionId'>): DeploymentEventData => ({ revisionId: rev, ...data });

describe('deployment events in words', () => {
  it('one line per event: elapsed seconds, the phase (or the event type), what happened', () => {
    const lines = [
      e({ type: 'admitted', revision: 3 }),
      e({ type: 'claimed', attempt: 1 }),
      e({ type: 'step', phase: 'plan', step: 'write-config' }),
      e({ type: 'step', phase: 'install', step: 'install', pluginId: 'openclaw:nostr', result: 'rejected' }),
      e({ type: 'step', phase: 'install', step: 'install', pluginId: 'diffs', result: 'done' }),
      e({ type: 'step', phase: 'refresh', step: 'registry-refresh' }),
      e({ type: 'step', phase: 'verify', step: 'verify-config' }),
      e({ type: 'step', phase: 'gateway', step: 'gateway' }),
      e({ type: 'warning', pluginId: 'openclaw:nostr', code: 'PLUGIN_INSTALL_FAILED' }),
      e({ type: 'succeeded', reasonCode: 'REVISION_ACTIVATED', attempt: 1 }),
    ].map((event, i) => describeEvent(event, i * 1250));
    expect(lines).toEqual([
      '  0.0s  admitted   revision 3 admitted',
      '  1.3s  claimed    claimed by a worker',
      '  2.5s  plan       wrote the configuration',
      '  3.8s  install    openclaw:nostr: rejected by the installer',
      '  5.0s  install    diffs: installed',
      '  6.3s  refresh    refreshed the plugin registry',
      '  7.5s  verify     verified the configuration',
      '  8.8s  gateway    gateway started',
      ' 10.0s  warning    openclaw:nostr could not be installed; the Agent runs without it (PLUGIN_INSTALL_FAILED)',
      ' 11.3s  succeeded  the revision is active (REVISION_ACTIVATED)',
    ]);
  });

  it('retries, failed starts and the outcomes other than success', () => {
    expect(describeEvent(e({ type: 'claimed', attempt: 2 }), 0)).toContain('attempt 2 (a retry) claimed by a worker');
    expect(describeEvent(e({ type: 'step', code: 'PLUGIN_VERIFICATION_FAILED' }), 0)).toBe('  0.0s  failed     the runtime did not start: PLUGIN_VERIFICATION_FAILED');
    expect(describeEvent(e({ type: 'failed', reasonCode: 'CONVERGENCE_DEADLINE_EXCEEDED' }), 0)).toContain('failed     the deploy failed (CONVERGENCE_DEADLINE_EXCEEDED)');
    expect(describeEvent(e({ type: 'superseded', reasonCode: 'REVISION_SUPERSEDED' }), 0)).toContain('a newer revision was admitted first');
    expect(describeEvent(e({ type: 'stopped', reasonCode: 'REVISION_STOPPED' }), 0)).toContain('the Agent was stopped first');
    expect(warningText('codex:gmail', 'PLUGIN_AUTH_REQUIRED')).toBe(
      'codex:gmail needs sign-in: it is installed, but its apps need authentication before their tools work (PLUGIN_AUTH_REQUIRED)',
    );
  });

  it('the spinner says what is going on after each event (warnings and outcomes keep it)', () => {
    expect(activityAfter(e({ type: 'admitted' }))).toBe('waiting for a worker');
    expect(activityAfter(e({ type: 'claimed', attempt: 2 }))).toBe('attempt 2: starting the runtime');
    expect(activityAfter(e({ type: 'step', phase: 'install', step: 'install', pluginId: 'x', result: 'done' }))).toBe('installing plugins');
    expect(activityAfter(e({ type: 'step', phase: 'gateway', step: 'gateway' }))).toBe('waiting for the Agent to become active');
    expect(activityAfter(e({ type: 'warning', pluginId: 'x', code: 'PLUGIN_INSTALL_FAILED' }))).toBeUndefined();
  });
});

describe('progress display', () => {
  it('a spinner only on a sized terminal, without --no-progress, --quiet or TERM=dumb', () => {
    const base = { isTTY: true, columns: 80, progress: true, quiet: false, term: 'xterm-256color' };
    expect(progressMode(base)).toBe('spinner');
    expect(progressMode({ ...base, isTTY: false })).toBe('lines');
    expect(progressMode({ ...base, isTTY: undefined })).toBe('lines');
    expect(progressMode({ ...base, progress: false })).toBe('lines');
    expect(progressMode({ ...base, term: 'dumb' })).toBe('lines');
    expect(progressMode({ ...base, columns: 0 })).toBe('lines');
    expect(progressMode({ ...base, quiet: true })).toBe('silent');
  });

  it('plain lines carry no escape code; silent writes nothing', () => {
    const stream = new PassThrough();
    let written = '';
    stream.on('data', (chunk) => (written += chunk));
    let clock = 1000;
    const lines = createProgressDisplay('lines', { stream: stream as unknown as NodeJS.WriteStream, now: () => clock });
    clock = 3500;
    lines.event(e({ type: 'step', phase: 'plan', step: 'plan' }));
    lines.stop();
    expect(written).toBe('  2.5s  plan       planned the plugins\n');
    createProgressDisplay('silent', { stream: stream as unknown as NodeJS.WriteStream }).event(e({ type: 'admitted' }));
    expect(written).not.toMatch(/\x1b/);
    expect(written.split('\n')).toHaveLength(2);
  });
});
