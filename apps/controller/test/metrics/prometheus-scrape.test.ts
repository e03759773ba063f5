import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admit, newDeployTarget, waitTerminal } from '../../../../test-support/deploy-helpers.ts';
import { startPrometheus, type RealPrometheus } from '../../../../test-support/prometheus.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';

/**
 * A real Prometheus (Debian's) scrapes a controller's metrics listener every second, as an
 * operator's would (docs/observability.md, the scrape config): after a deploy through the worker,
 * the deploy's duration and its reconcile attempt are read back through Prometheus's query API.
 */
describe('a real Prometheus scraping OCC', () => {
  let t: TestController;
  let prometheus: RealPrometheus;

  beforeAll(async () => {
    t = await startTestController({ worker: { leaseMs: 2000, pollMs: 50, convergencePollMs: 50 }, metricsAddress: '127.0.0.1:0' });
    prometheus = await startPrometheus([new URL(t.controller.metrics!.url).host]);
  });
  afterAll(async () => {
    await prometheus?.close();
    await t?.close();
  });

  it('sees the target up, then reads a deploy back: its duration histogram and its reconcile attempt', async () => {
    await prometheus.waitFor('up{job="occ"}', (r) => r[0]?.value[1] === '1');
    const target = await newDeployTarget(t);
    const revision = await admit(t, target);
    expect(await waitTerminal(t, target, revision.id)).toMatchObject({ state: 'succeeded' });

    const count = await prometheus.waitFor('occ_deploy_duration_seconds_count{job="occ"}', (r) => r.length === 1 && r[0]!.value[1] === '1');
    expect(count[0]!.metric).toMatchObject({ __name__: 'occ_deploy_duration_seconds_count', compute: 'scripted', harness: 'openclaw', outcome: 'succeeded' });
    const [sum] = await prometheus.query('occ_deploy_duration_seconds_sum{job="occ"}');
    expect(Number(sum!.value[1])).toBeGreaterThan(0);
    const attempts = await prometheus.query('sum by (outcome, reason) (occ_reconcile_attempts_total{job="occ", kind="reconcile_revision"})');
    expect(attempts.map((a) => ({ ...a.metric, value: a.value[1] }))).toEqual([{ outcome: 'succeeded', reason: 'REVISION_ACTIVATED', value: '1' }]);
    // PromQL reads the buckets as a histogram: the deploy's p95, a positive number of seconds within the buckets.
    const [p95] = await prometheus.query('histogram_quantile(0.95, sum by (le) (occ_deploy_duration_seconds_bucket{job="occ"}))');
    expect(Number(p95!.value[1])).toBeGreaterThan(0);
    expect(Number(p95!.value[1])).toBeLessThanOrEqual(3600);
    const agents = await prometheus.query('occ_agents{job="occ", phase="running"}');
    expect(agents.map((a) => [a.metric.compute, a.value[1]])).toEqual([['scripted', '1']]);
  });
});
