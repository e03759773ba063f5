import { ID_PREFIXES, routeTable } from '@occ/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admit, newDeployTarget, scriptedByAgent, waitFor, waitTerminal, type DeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { parseExposition, promtoolCheckMetrics, sampleValue, type Sample } from '../../../../test-support/prometheus.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, uniqueName } from '../../../../test-support/world.ts';

/**
 * The metrics listener (docs/observability.md): a controller with OCC_METRICS_ADDRESS on serves
 * every OCC series on a port of its own, counted from real requests, real deploys through the
 * worker (scripted compute) and a real discovery call; labels are route templates and closed
 * vocabularies, never an id or a secret; the API port does not serve it; promtool accepts it.
 */
const CANARY = 'metrics-canary-9f2c41d7e6b8a035';
const AGENT_ROUTE = '/namespaces/:ns/agents/:id';
const ANY_ID = new RegExp(`(${Object.values(ID_PREFIXES).join('|')})_[0-9a-f]{8}-`);

describe('the metrics listener', () => {
  let t: TestController;
  let scripted: ReturnType<typeof scriptedByAgent>;
  let apiUrl: string;
  let metricsUrl: string;
  const targets: Record<'ready' | 'failing' | 'slow', DeployTarget> = {} as never;
  let idle: { id: string; ns: string };
  /** Ends the held prepare of the queue gauges test (also at the end, should that test fail first). */
  let release = () => {};

  const scrape = async (): Promise<{ text: string; samples: Sample[]; contentType: string | null }> => {
    const res = await fetch(metricsUrl);
    expect(res.status).toBe(200);
    const text = await res.text();
    return { text, samples: parseExposition(text), contentType: res.headers.get('content-type') };
  };
  const value = async (name: string, labels: Record<string, string>) => sampleValue((await scrape()).samples, name, labels);

  beforeAll(async () => {
    scripted = scriptedByAgent();
    t = await startTestController({
      compute: scripted.compute,
      worker: { leaseMs: 2000, pollMs: 50, convergencePollMs: 50 },
      work: { maxAttempts: 2 },
      metricsAddress: '127.0.0.1:0',
    });
    metricsUrl = t.controller.metrics!.url;
    apiUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    release();
    await t?.close();
  });

  it('listens apart from the API, on the address it was given (port 0: a free one), and answers only GET /metrics', async () => {
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(metricsUrl).port).not.toBe(new URL(apiUrl).port);
    const api = await fetch(`${apiUrl}/metrics`);
    expect(api.status).toBe(404);
    expect(await api.text()).not.toContain('occ_http_requests_total');
    const listener = new URL(metricsUrl);
    expect((await fetch(new URL('/', listener))).status).toBe(404);
    expect((await fetch(new URL('/metrics/extra', listener))).status).toBe(404);
    expect((await fetch(metricsUrl, { method: 'POST' })).status).toBe(404);
    const { contentType } = await scrape();
    expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it('counts API requests by method, route template and status, and times them', async () => {
    const ns = t.defaultNamespaceId;
    await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('canary'), value: CANARY });
    const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {} });
    idle = { ns, id: (await adminCreate(t, `/namespaces/${ns}/agents`, { name: uniqueName('idle'), configurationId: cfg.id, harness: 'openclaw' })).id };
    const before = (await value('occ_http_requests_total', { method: 'GET', route: AGENT_ROUTE, status: '200' })) ?? 0;
    // The first test's GET /metrics on the API port was one already.
    const unmatchedBefore = (await value('occ_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })) ?? 0;

    expect((await t.request({ method: 'GET', url: `/namespaces/${ns}/agents/${idle.id}` })).status).toBe(200);
    expect((await t.request({ method: 'GET', url: `/namespaces/${ns}/agents/agt_00000000-0000-4000-8000-000000000000` })).status).toBe(404);
    expect((await t.request({ method: 'GET', url: `/no-such-route/${idle.id}?token=${CANARY}` })).status).toBe(404);
    // A URL the router cannot decode is answered before any route is chosen.
    expect((await t.request({ method: 'GET', url: `/namespaces/${ns}/agents/%E0%A4%A` })).status).toBe(404);
    expect((await t.request({ method: 'POST', url: `/namespaces/${ns}/agents`, body: { name: 'x' } })).status).toBe(400);

    const { samples } = await scrape();
    expect(sampleValue(samples, 'occ_http_requests_total', { method: 'GET', route: AGENT_ROUTE, status: '200' })).toBe(before + 1);
    expect(sampleValue(samples, 'occ_http_requests_total', { method: 'GET', route: AGENT_ROUTE, status: '404' })).toBe(1);
    expect(sampleValue(samples, 'occ_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(unmatchedBefore + 2);
    expect(sampleValue(samples, 'occ_http_requests_total', { method: 'POST', route: '/namespaces/:ns/agents', status: '400' })).toBe(1);
    expect(sampleValue(samples, 'occ_http_request_duration_seconds_count', { method: 'GET', route: AGENT_ROUTE })).toBe(before + 2);
    expect(sampleValue(samples, 'occ_http_request_duration_seconds_bucket', { method: 'GET', route: AGENT_ROUTE, le: '+Inf' })).toBe(before + 2);
    expect(sampleValue(samples, 'occ_http_request_duration_seconds_sum', { method: 'GET', route: AGENT_ROUTE })).toBeGreaterThan(0);
    expect(samples.filter((s) => s.name === 'occ_http_requests_total').every((s) => s.labels.route === 'unmatched' || s.labels.route!.startsWith('/'))).toBe(true);
  });

  it('counts each reconcile attempt by kind, outcome and reason, and times deploys from admission to their end', async () => {
    for (const name of ['ready', 'failing', 'slow'] as const) targets[name] = await newDeployTarget(t);
    // ready: one convergence wait, then ready. failing: the runtime exits on both attempts it has.
    scripted.prepare.set(targets.ready.agentId, (_revision, call) => (call === 1 ? { ready: false, pendingReason: 'RUNTIME_STARTING' } : {}));
    scripted.prepare.set(targets.failing.agentId, () => ({ runtimeFailure: { code: 'RUNTIME_EXITED', message: 'exited' } }));
    const ready = await admit(t, targets.ready);
    const failing = await admit(t, targets.failing);
    expect(await waitTerminal(t, targets.ready, ready.id)).toMatchObject({ state: 'succeeded' });
    expect(await waitTerminal(t, targets.failing, failing.id)).toMatchObject({ state: 'failed', reasonCode: 'RUNTIME_EXITED' });

    const attempts = (outcome: string, reason: string) => ({ kind: 'reconcile_revision', outcome, reason });
    const { samples } = await waitFor(
      'both deploys timed',
      scrape,
      (s) => sampleValue(s.samples, 'occ_deploy_duration_seconds_count', { compute: 'scripted', harness: 'openclaw', outcome: 'failed' }) === 1,
    );
    expect(sampleValue(samples, 'occ_reconcile_attempts_total', attempts('deferred', 'RUNTIME_STARTING'))).toBe(1);
    expect(sampleValue(samples, 'occ_reconcile_attempts_total', attempts('succeeded', 'REVISION_ACTIVATED'))).toBe(1);
    expect(sampleValue(samples, 'occ_reconcile_attempts_total', attempts('retried', 'RUNTIME_EXITED'))).toBe(1);
    // The second attempt had none left: the retry it asked for became the deploy's failure.
    expect(sampleValue(samples, 'occ_reconcile_attempts_total', attempts('failed', 'RUNTIME_EXITED'))).toBe(1);
    expect(sampleValue(samples, 'occ_deploy_duration_seconds_count', { compute: 'scripted', harness: 'openclaw', outcome: 'succeeded' })).toBe(1);
    const seconds = sampleValue(samples, 'occ_deploy_duration_seconds_sum', { compute: 'scripted', harness: 'openclaw', outcome: 'succeeded' })!;
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThan(20);
    expect(sampleValue(samples, 'occ_deploy_duration_seconds_bucket', { compute: 'scripted', harness: 'openclaw', outcome: 'succeeded', le: '3600' })).toBe(1);
  });

  it('reads the work queue gauges from the database at each scrape: claimed, ready behind a busy lane, its age, then empty', async () => {
    const slow = targets.slow;
    // Revision 1 prepares until the test releases it; revision 2, admitted meanwhile, waits for the Agent's lane.
    const releasedFirst = new Promise<void>((resolve) => (release = resolve));
    scripted.prepare.set(slow.agentId, (revision) => (revision.revision === 1 ? { until: releasedFirst } : {}));
    const first = await admit(t, slow);
    const depth = (s: Sample[], state: string) => sampleValue(s, 'occ_work_queue_depth', { kind: 'reconcile_revision', state });
    await waitFor('the slow revision claimed', scrape, (s) => depth(s.samples, 'claimed') === 1);
    const second = await admit(t, slow);
    const waiting = await waitFor(
      'the next revision waiting behind it',
      scrape,
      (s) => depth(s.samples, 'ready') === 1 && sampleValue(s.samples, 'occ_work_queue_oldest_age_seconds', { kind: 'reconcile_revision' })! >= 0.2,
    );
    expect(depth(waiting.samples, 'claimed')).toBe(1);
    expect(depth(waiting.samples, 'delayed')).toBe(0);
    release();
    expect(await waitTerminal(t, slow, first.id)).toMatchObject({ state: 'superseded' });
    expect(await waitTerminal(t, slow, second.id)).toMatchObject({ state: 'succeeded' });

    const { samples } = await scrape();
    for (const kind of ['reconcile_revision', 'stop_agent', 'remove_agent', 'ensure_active'])
      for (const state of ['ready', 'delayed', 'claimed']) expect(sampleValue(samples, 'occ_work_queue_depth', { kind, state }), `${kind} ${state}`).toBe(0);
    expect(sampleValue(samples, 'occ_work_queue_oldest_age_seconds', { kind: 'reconcile_revision' })).toBe(0);
    expect(sampleValue(samples, 'occ_reconcile_attempts_total', { kind: 'reconcile_revision', outcome: 'cancelled', reason: 'REVISION_SUPERSEDED' })).toBe(1);
    expect(sampleValue(samples, 'occ_database_up')).toBe(1);
  });

  it('counts Agents by phase and ComputeDriver, read from the stored state', async () => {
    const stop = await t.request({ method: 'POST', url: `${targets.ready.url}/stop` });
    expect(stop.status).toBe(202);
    const { samples } = await waitFor('the stop done', scrape, (s) =>
      s.samples.some((x) => x.name === 'occ_reconcile_attempts_total' && x.labels.kind === 'stop_agent' && x.labels.outcome === 'succeeded'),
    );
    const agents = (phase: string, compute: string) => sampleValue(samples, 'occ_agents', { phase, compute });
    // running: slow; failed: failing; stopped: ready; never deployed: idle and the ones the first tests made.
    expect(agents('running', 'scripted')).toBe(1);
    expect(agents('failed', 'scripted')).toBe(1);
    expect(agents('stopped', 'scripted')).toBe(1);
    expect(agents('deploying', 'scripted')).toBe(0);
    expect(agents('undeployed', 'none')).toBeGreaterThanOrEqual(1);
  });

  it('counts plugin discovery calls by PluginDriver and outcome', async () => {
    const found = await t.request({ method: 'POST', url: `/namespaces/${idle.ns}/agents/${idle.id}/plugins`, body: {} });
    expect(found.status).toBe(200);
    const missing = await t.request({ method: 'POST', url: `/namespaces/${idle.ns}/agents/${idle.id}/plugins/details`, body: { pluginId: 'no-such-plugin' } });
    expect(missing.status).toBe(404);
    const { samples } = await scrape();
    expect(sampleValue(samples, 'occ_discovery_calls_total', { driver: 'openclaw-curated', outcome: 'ok' })).toBe(1);
    expect(sampleValue(samples, 'occ_discovery_calls_total', { driver: 'openclaw-curated', outcome: 'not_found' })).toBe(1);
  });

  it("exposes the process's own metrics with the occ_ prefix", async () => {
    const names = new Set((await scrape()).samples.map((s) => s.name));
    for (const name of ['occ_process_cpu_user_seconds_total', 'occ_process_resident_memory_bytes', 'occ_nodejs_eventloop_lag_seconds', 'occ_nodejs_heap_size_used_bytes'])
      expect(names, name).toContain(name);
    expect([...names].filter((n) => !n.startsWith('occ_'))).toEqual([]);
  });

  it('carries no id, URL or secret in any label or value, and promtool check metrics accepts it without a complaint', async () => {
    const { text, samples } = await scrape();
    for (const secret of [CANARY, t.adminKey, idle.id, idle.ns, targets.ready.agentId]) expect(text).not.toContain(secret);
    const labelValues = samples.flatMap((s) => Object.values(s.labels));
    expect(labelValues.filter((v) => ANY_ID.test(v) || v.includes('?') || v.includes('://'))).toEqual([]);
    // Every route label is a template of the route table (or `unmatched`), never a path that was asked for.
    const templates = new Set<string>(routeTable.map((r) => r.path));
    const routes = new Set(samples.filter((s) => s.labels.route !== undefined).map((s) => s.labels.route!));
    expect([...routes].filter((route) => route !== 'unmatched' && !templates.has(route))).toEqual([]);

    const checked = await promtoolCheckMetrics(text);
    expect(checked, checked.output).toEqual({ code: 0, output: '' });
  });
});
