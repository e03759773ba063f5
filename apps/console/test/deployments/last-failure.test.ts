import { describe, expect, it } from 'vitest';
import type { DeploymentEventData, DeploymentStatus, RuntimeView } from '@occ/contracts';
import { runtimeLastFailure } from '../../src/deployments/last-failure.ts';
import type { ReceivedEvent } from '../../src/deployments/use-deployment-progress.ts';

const revisionId = 'rev_00000000-0000-4000-8000-000000000001';
const at = '2026-12-03T07:00:00.000Z';

/** The events as the Progress list holds them, in the order the stream sent them. */
const received = (events: DeploymentEventData[]): ReceivedEvent[] => events.map((data, key) => ({ key, data, receivedAt: 0 }));

/** One attempt whose runtime started, planned, and failed with `code`. */
const failedAttempt = (attempt: number, code: DeploymentEventData['code']): DeploymentEventData[] => [
  { type: 'claimed', revisionId, attempt },
  { type: 'step', revisionId, step: 'plan', phase: 'plan', at },
  { type: 'step', revisionId, code, at },
];

const status = (state: DeploymentStatus['state'], reasonCode: DeploymentStatus['reasonCode']): DeploymentStatus => ({
  revisionId,
  agentId: 'agt_00000000-0000-4000-8000-000000000001',
  revision: 2,
  state,
  reasonCode,
  attempts: 3,
  lastAttempt: { code: reasonCode, at },
  nextAttemptAt: null,
  error: null,
  warnings: [],
  active: state === 'succeeded',
});

/** The live runtime view after an OCC restart: the ComputeDriver remembers nothing of a revision that never ran. */
const afterRestart: RuntimeView = {
  revisionId,
  observedAt: at,
  running: false,
  phase: null,
  startupId: null,
  restarts: 0,
  ready: false,
  deliveredSecrets: [],
  lastFailureCode: null,
  loaded: null,
};

describe("the runtime facts' Last failure", () => {
  it('of a failed revision after an OCC restart is the newest failure of its replayed events, not none', () => {
    const replay = received([
      { type: 'admitted', revisionId, revision: 2, at },
      ...failedAttempt(1, 'PLUGIN_SOURCE_UNREACHABLE'),
      ...failedAttempt(2, 'PLUGIN_SOURCE_UNREACHABLE'),
      ...failedAttempt(3, 'PLUGIN_VERIFICATION_FAILED'),
      { type: 'failed', revisionId, reasonCode: 'PLUGIN_VERIFICATION_FAILED', attempt: 3 },
    ]);
    expect(runtimeLastFailure(afterRestart, status('failed', 'PLUGIN_VERIFICATION_FAILED'), replay)).toBe('PLUGIN_VERIFICATION_FAILED');
    // Before its outcome has arrived, the newest failed start the replay has brought so far.
    expect(runtimeLastFailure(afterRestart, status('failed', 'PLUGIN_VERIFICATION_FAILED'), replay.slice(0, 7))).toBe('PLUGIN_SOURCE_UNREACHABLE');
    // A failure with no runtime step (a refused start): the outcome's reason.
    const refused = received([
      { type: 'admitted', revisionId, revision: 2, at },
      { type: 'claimed', revisionId, attempt: 1 },
      { type: 'failed', revisionId, reasonCode: 'SECRET_ACCESS_REVOKED', attempt: 1 },
    ]);
    expect(runtimeLastFailure(afterRestart, status('failed', 'SECRET_ACCESS_REVOKED'), refused)).toBe('SECRET_ACCESS_REVOKED');
  });

  it("is the live view's for a revision that did not fail: earlier failed attempts of a succeeded deploy are not the runtime's failure", () => {
    const recovered = received([
      { type: 'admitted', revisionId, revision: 2, at },
      ...failedAttempt(1, 'PLUGIN_SOURCE_UNREACHABLE'),
      { type: 'claimed', revisionId, attempt: 2 },
      { type: 'step', revisionId, step: 'gateway', phase: 'gateway', at },
      { type: 'succeeded', revisionId, reasonCode: 'REVISION_ACTIVATED', attempt: 2 },
    ]);
    expect(runtimeLastFailure(afterRestart, status('succeeded', 'REVISION_ACTIVATED'), recovered)).toBeNull();
    expect(runtimeLastFailure({ ...afterRestart, lastFailureCode: 'RUNTIME_EXITED' }, status('succeeded', 'REVISION_ACTIVATED'), recovered)).toBe('RUNTIME_EXITED');
    // A failed revision whose replay has not arrived yet shows what the live view knows.
    expect(runtimeLastFailure({ ...afterRestart, lastFailureCode: 'PLUGIN_VERIFICATION_FAILED' }, status('failed', 'PLUGIN_VERIFICATION_FAILED'), [])).toBe(
      'PLUGIN_VERIFICATION_FAILED',
    );
  });
});
