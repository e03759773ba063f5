import { PERMANENT_STARTUP_FAILURE_CODES } from '@occ/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLUGIN, activeRevisionId, admit, effectsOf, newDeployTarget, scriptedByAgent, waitTerminal } from '../../../../test-support/deploy-helpers.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';

/** Startup failures no retry can cure fail the deploy on its first attempt; the others spend every attempt. */
describe('startup failures the worker does not retry', () => {
  let t: TestController;
  const script = scriptedByAgent();
  beforeAll(async () => {
    t = await startTestController({ compute: script.compute, worker: { leaseMs: 5_000, pollMs: 25, convergencePollMs: 50 }, work: { maxAttempts: 3 } });
  });
  afterAll(async () => t?.close());

  async function failWith(failure: { code: string; message: string; detail?: unknown }) {
    const target = await newDeployTarget(t);
    script.prepare.set(target.agentId, () => ({ runtimeFailure: failure as never }));
    const revision = await admit(t, target);
    return { target, revision, status: await waitTerminal(t, target, revision.id) };
  }

  it.each(PERMANENT_STARTUP_FAILURE_CODES)('[K-1] %s fails the deploy after one attempt, the pointer unchanged', async (code) => {
    const { target, revision, status } = await failWith({ code, message: 'the runtime’s own text' });
    expect(status).toMatchObject({ state: 'failed', reasonCode: code, attempts: 1, active: false, nextAttemptAt: null });
    expect(status.error).toEqual({ code, message: `The runtime did not start (${code}).` });
    expect(effectsOf(script.compute.effects, revision.id, 'prepare')).toHaveLength(1);
    expect(await activeRevisionId(t, target)).toBeNull();
  });

  it('a failure a retry may cure (the package source unreachable) still spends every attempt', async () => {
    const { revision, status } = await failWith({ code: 'PLUGIN_SOURCE_UNREACHABLE', message: 'x' });
    expect(status).toMatchObject({ state: 'failed', reasonCode: 'PLUGIN_SOURCE_UNREACHABLE', attempts: 3 });
    expect(effectsOf(script.compute.effects, revision.id, 'prepare')).toHaveLength(3);
  });

  it('the message names the plugin and the reason the runtime reported, in OCC’s words', async () => {
    const detail = { plugin: PLUGIN, violation: { code: 'UNSUPPORTED_VALUE', at: '' } };
    const { status } = await failWith({ code: 'PLUGIN_POLICY_INVALID', message: 'the runtime’s own text', detail });
    expect(status).toMatchObject({ state: 'failed', reasonCode: 'PLUGIN_POLICY_INVALID', attempts: 1 });
    expect(status.error).toEqual({
      code: 'PLUGIN_POLICY_INVALID',
      message: "The runtime did not start (PLUGIN_POLICY_INVALID): plugin openclaw:@openclaw/nostr is not in the runtime's plugin catalog.",
    });
  });

  it('a plugin the revision does not select is never named', async () => {
    const detail = { plugin: 'openclaw:@openclaw/discord', violation: { code: 'UNSUPPORTED_VALUE', at: '' } };
    const { status } = await failWith({ code: 'PLUGIN_POLICY_INVALID', message: 'x', detail });
    expect(status.error).toEqual({ code: 'PLUGIN_POLICY_INVALID', message: 'The runtime did not start (PLUGIN_POLICY_INVALID).' });
  });
});
