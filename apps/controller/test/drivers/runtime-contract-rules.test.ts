import { RUNTIME_LOG_TAIL_MAX, type StartupFailureDetail } from '@occ/contracts';
import { describe, expect, it } from 'vitest';
import { lastLines, tailLength } from '../../src/drivers/compute/runtime-contract/log-lines.ts';
import type { PrepareResult } from '../../src/core/ports/compute-driver.ts';
import { failedPrepare, prepareResultOf, STARTUP_FAILURE_MESSAGE } from '../../src/drivers/compute/runtime-contract/prepare-result.ts';
import { gatewayServes, watchPrepare, type GatewayProbe } from '../../src/drivers/compute/runtime-contract/prepare-watch.ts';
import { lineRedactor, redactable } from '../../src/drivers/compute/runtime-contract/redaction.ts';
import { noRuntime, notServingYet, phaseOf } from '../../src/drivers/compute/runtime-contract/runtime-description.ts';
import { observeStatus, statusReadOf, type Observation } from '../../src/drivers/compute/runtime-contract/startup-status.ts';

// The rules every ComputeDriver (local, docker, kubernetes) takes from runtime-contract/ instead of a copy of its own.
describe('the rules the compute drivers share', () => {
  it('redacts values of 4 characters or more, each whole, a longer one before a shorter one inside it', () => {
    expect(redactable(['abc', 'abcd', 'abcd', 'abcdefgh'])).toEqual(['abcdefgh', 'abcd']);
    const redact = lineRedactor(['abcd', 'abcdefgh', 'xyz']);
    expect(redact('token abcdefgh, key abcd, short xyz')).toBe('token [redacted], key [redacted], short xyz');
  });

  it("bounds a log read to the contract's 1…RUNTIME_LOG_TAIL_MAX lines and redacts each line it returns", () => {
    expect([tailLength(0), tailLength(2.9), tailLength(RUNTIME_LOG_TAIL_MAX + 1)]).toEqual([1, 2, RUNTIME_LOG_TAIL_MAX]);
    expect(lastLines('a\nsecret-1\nc\n', 2, lineRedactor(['secret-1']))).toEqual({ lines: ['[redacted]', 'c'], truncated: true });
    expect(lastLines('a\nb', 5, (line) => line)).toEqual({ lines: ['a', 'b'], truncated: false });
    expect(lastLines('', 5, (line) => line)).toEqual({ lines: [], truncated: false });
  });

  it('maps each look at a runtime onto the prepare result, with the fixed failure message', () => {
    const ready: Observation = { kind: 'ready', gatewayPort: 1, warnings: [], startupId: 's', loaded: null };
    expect(prepareResultOf(ready, true)).toEqual({ state: 'ready', warnings: [] });
    expect(prepareResultOf(ready, false)).toEqual({ state: 'pending', reason: 'GATEWAY_STARTING' });
    expect(prepareResultOf({ kind: 'untrusted' }, true)).toEqual({ state: 'pending', reason: 'RUNTIME_STATUS_UNTRUSTED' });
    expect(prepareResultOf({ kind: 'starting' }, true)).toEqual({ state: 'pending', reason: 'RUNTIME_STARTING' });
    expect(prepareResultOf({ kind: 'starting', prepared: true }, false)).toEqual({ state: 'pending', reason: 'RUNTIME_STARTING', awaitsGo: true });
    const detail = { plugin: 'diffs' } as StartupFailureDetail;
    expect(prepareResultOf({ kind: 'failed', code: 'PLUGIN_INSTALL_FAILED', detail }, true)).toEqual({
      state: 'failed',
      failure: { code: 'PLUGIN_INSTALL_FAILED', message: STARTUP_FAILURE_MESSAGE, detail },
    });
    expect(failedPrepare('RUNTIME_EXITED')).toEqual({ state: 'failed', failure: { code: 'RUNTIME_EXITED', message: 'The runtime failed to start.' } });
  });

  it('shows the live phase, the empty view and why a gateway cannot take a message yet', () => {
    expect([phaseOf({ kind: 'starting' }), phaseOf({ kind: 'untrusted' }), phaseOf({ kind: 'failed', code: 'X_Y' }), phaseOf(null)]).toEqual(['preparing', null, 'failed', null]);
    // A candidate prepared beside the serving revision, waiting for its go (OCC_LOCAL_REDEPLOY=prepare-beside).
    expect(phaseOf({ kind: 'starting', prepared: true })).toBe('prepared');
    const empty = noRuntime();
    empty.deliveredSecrets.push('A');
    expect(noRuntime().deliveredSecrets).toEqual([]);
    expect(notServingYet({ kind: 'failed', code: 'RUNTIME_EXITED' })).toEqual({ kind: 'not-serving', state: 'its start failed (RUNTIME_EXITED)' });
    expect(notServingYet(null)).toEqual({ kind: 'not-serving', state: 'it is starting' });
  });

  it('reads a status answer the same way whether it came over loopback, a published port or the pod proxy', () => {
    expect([statusReadOf(502, null), statusReadOf(503, 'x'), statusReadOf(404, '{}'), statusReadOf(200, null), statusReadOf(200, '{')]).toEqual([
      'unreachable',
      'unreachable',
      'malformed',
      'malformed',
      'malformed',
    ]);
    expect(statusReadOf(200, '{"a":1}')).toEqual({ body: { a: 1 } });
    const expected = { revisionId: 'rev', startupId: 's', selections: new Set<string>(), enabled: new Set<string>() };
    expect(observeStatus('unreachable', expected)).toEqual({ kind: 'starting' });
    expect(observeStatus('malformed', expected)).toEqual({ kind: 'untrusted' });
    expect(observeStatus({ body: { not: 'a status' } }, expected)).toEqual({ kind: 'untrusted' });
  });

  it("[P-6] one prepare's watch answers the first settled look, at once a look that holds for the worker's go, else the last look at its deadline", async () => {
    const signal = AbortSignal.timeout(10_000);
    const scripted = (answers: PrepareResult[]) => {
      let looks = 0;
      return { look: async () => answers[Math.min(looks++, answers.length - 1)]!, looks: () => looks };
    };
    const starting: PrepareResult = { state: 'pending', reason: 'RUNTIME_STARTING' };
    const ready = scripted([starting, starting, { state: 'ready', warnings: [] }]);
    expect(await watchPrepare(ready.look, { waitMs: 5_000, pollMs: 1, signal })).toEqual({ state: 'ready', warnings: [] });
    expect(ready.looks()).toBe(3);
    const held = scripted([starting, { state: 'pending', reason: 'RUNTIME_STARTING', awaitsGo: true }, { state: 'ready', warnings: [] }]);
    expect(await watchPrepare(held.look, { waitMs: 5_000, pollMs: 1, signal })).toMatchObject({ awaitsGo: true });
    expect(held.looks()).toBe(2);
    const slow = scripted([starting]);
    expect(await watchPrepare(slow.look, { waitMs: 50, pollMs: 20, signal })).toEqual(starting);
    expect(slow.looks()).toBeLessThanOrEqual(3);
    await expect(watchPrepare(slow.look, { waitMs: 5_000, pollMs: 20, signal: AbortSignal.abort() })).rejects.toThrow();
  });

  it("asks a gateway whether it serves within the probe's time: a probe that fails or does not answer is not serving; the caller's own abort still ends the prepare", async () => {
    const signal = AbortSignal.timeout(10_000);
    expect(await gatewayServes(async (port, token) => port === 7 && token === 't', 7, 't', signal, 1_000)).toBe(true);
    expect(await gatewayServes(async () => Promise.reject(new Error('refused')), 7, 't', signal, 1_000)).toBe(false);
    const hangs: GatewayProbe = (_port, _token, bounded) =>
      new Promise((_resolve, reject) => (bounded.aborted ? reject(bounded.reason) : bounded.addEventListener('abort', () => reject(bounded.reason))));
    expect(await gatewayServes(hangs, 7, 't', signal, 20)).toBe(false);
    await expect(gatewayServes(hangs, 7, 't', AbortSignal.abort(), 1_000)).rejects.toThrow();
  });
});
