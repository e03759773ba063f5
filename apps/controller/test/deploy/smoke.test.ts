import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, uniqueName } from '../../../../test-support/world.ts';

describe('deploy end to end with the in-process worker', () => {
  let t: TestController;
  beforeAll(async () => {
    t = await startTestController({ worker: { leaseMs: 2000, pollMs: 50, convergencePollMs: 50 } });
  });
  afterAll(async () => t?.close());

  it('[A-1][K-5] admits a revision and the worker activates it', async () => {
    const ns = t.defaultNamespaceId;
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: { a: 1 } });
    const agent = await adminCreate(t, `/namespaces/${ns}/agents`, {
      name: uniqueName('a'),
      configurationId: cfg.id,
      harness: 'openclaw',
      plugins: { browser: { enabled: true } },
    });
    const res = await t.request({ method: 'POST', url: `/namespaces/${ns}/agents/${agent.id}/deploy` });
    expect(res.status).toBe(202);
    const rev = res.body.data;
    expect(rev).toMatchObject({
      revision: 1,
      agentId: agent.id,
      plugins: { browser: { enabled: true } },
      pluginDriverId: 'openclaw-curated',
      computeDriverId: 'scripted',
      configuration: { id: cfg.id, generation: 1, values: { a: 1 } },
    });
    let status: any;
    for (let i = 0; i < 100; i++) {
      status = (await t.request({ method: 'GET', url: `/namespaces/${ns}/agents/${agent.id}/deployments/${rev.id}` })).body.data;
      if (status.state === 'succeeded' || status.state === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toMatchObject({ state: 'succeeded', reasonCode: 'REVISION_ACTIVATED', active: true, warnings: [] });
    const after = (await t.request({ method: 'GET', url: `/namespaces/${ns}/agents/${agent.id}` })).body.data;
    expect(after).toMatchObject({ activeRevisionId: rev.id, desiredState: 'running' });
  });
});
