import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { AGENT_PHASES, type Metrics, type ObservedState } from '../../../core/ports/metrics.ts';
import { WORK_KINDS } from '../../../core/ports/work-queue.ts';

/** Every OCC metric's prefix, the process defaults' too. */
const PREFIX = 'occ_';
/** Seconds: a request through the API takes milliseconds; a slow one is seconds. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds: a scripted deploy takes a fraction of one, a runtime installing plugins minutes, a converging one up to its deadline (15 min by default) and its retries. */
const DEPLOY_BUCKETS = [0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600, 900, 1800, 3600];
/**
 * prom-client's defaults also count handles, requests and resources as gauges named `…_total`,
 * which Prometheus reserves for counters (`promtool check metrics` says so); the same values stay
 * as `occ_nodejs_active_handles`, `…_requests` and `…_resources`.
 */
const MISNAMED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

export interface PrometheusMetrics {
  /** What the HTTP layer, the use cases and the worker record through. */
  readonly recorder: Metrics;
  /** The exposition (Prometheus text format 0.0.4), the state's gauges read first. */
  exposition(): Promise<string>;
  readonly contentType: string;
}

export interface PrometheusMetricsOptions {
  /** Reads the gauges from the state (core/use-cases/observed-state.ts), at every scrape. */
  observe(): Promise<ObservedState>;
  /** Told when the state could not be read: the scrape answers without those gauges and with `occ_database_up 0`. */
  onObserveFailure?(error: unknown): void;
}

/**
 * The Metrics port over prom-client, in a registry of its own (never the global one, so two
 * controllers in one process, as in the tests, never mix). Counters and histograms are recorded
 * as things happen; the work queue and Agent gauges are read from the database at each scrape.
 */
export function createPrometheusMetrics(options: PrometheusMetricsOptions): PrometheusMetrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry, prefix: PREFIX });
  for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(`${PREFIX}${name}`);

  const httpRequests = new Counter({
    name: 'occ_http_requests_total',
    help: 'HTTP requests the API answered, by method, route template (unmatched: no route) and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const httpDuration = new Histogram({
    name: 'occ_http_request_duration_seconds',
    help: 'Time the API took to answer a request, by method and route template.',
    labelNames: ['method', 'route'] as const,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const attempts = new Counter({
    name: 'occ_reconcile_attempts_total',
    help: 'Work item attempts that ended, by work kind, outcome (succeeded, cancelled, failed, retried, deferred, abandoned) and reason code.',
    labelNames: ['kind', 'outcome', 'reason'] as const,
    registers,
  });
  const deployDuration = new Histogram({
    name: 'occ_deploy_duration_seconds',
    help: 'Time from a deploy admission to its terminal state, by ComputeDriver, harness and outcome (succeeded, failed).',
    labelNames: ['compute', 'harness', 'outcome'] as const,
    buckets: DEPLOY_BUCKETS,
    registers,
  });
  const discoveryCalls = new Counter({
    name: 'occ_discovery_calls_total',
    help: 'Plugin discovery calls, by PluginDriver and outcome (ok, or the failure reason).',
    labelNames: ['driver', 'outcome'] as const,
    registers,
  });
  const queueDepth = new Gauge({
    name: 'occ_work_queue_depth',
    help: 'Open work items, by kind and state (ready: claimable now; delayed: waiting for a retry backoff or a convergence wait; claimed).',
    labelNames: ['kind', 'state'] as const,
    registers,
  });
  const queueOldest = new Gauge({
    name: 'occ_work_queue_oldest_age_seconds',
    help: 'How long the longest-waiting ready work item of each kind has been claimable (0 when none is).',
    labelNames: ['kind'] as const,
    registers,
  });
  const agents = new Gauge({
    name: 'occ_agents',
    help: 'Agents by phase (undeployed, deploying, running, failed, stopped; from stored state) and the ComputeDriver of their latest revision (none: never deployed).',
    labelNames: ['phase', 'compute'] as const,
    registers,
  });
  const databaseUp = new Gauge({
    name: 'occ_database_up',
    help: 'Whether this scrape read the work queue and Agent gauges from the database (1) or could not (0: those gauges are absent).',
    registers,
  });

  async function observeState(): Promise<void> {
    let observed: ObservedState;
    try {
      observed = await options.observe();
    } catch (error) {
      queueDepth.reset();
      queueOldest.reset();
      agents.reset();
      databaseUp.set(0);
      options.onObserveFailure?.(error);
      return;
    }
    // Every kind is exposed, zero when it has no open item, so a rule never meets a missing series.
    queueDepth.reset();
    queueOldest.reset();
    for (const kind of WORK_KINDS) {
      for (const state of ['ready', 'delayed', 'claimed'] as const) queueDepth.set({ kind, state }, 0);
      queueOldest.set({ kind }, 0);
    }
    for (const g of observed.workQueue) {
      queueDepth.set({ kind: g.kind, state: 'ready' }, g.ready);
      queueDepth.set({ kind: g.kind, state: 'delayed' }, g.delayed);
      queueDepth.set({ kind: g.kind, state: 'claimed' }, g.claimed);
      queueOldest.set({ kind: g.kind }, g.oldestReadySeconds);
    }
    agents.reset();
    for (const compute of new Set(observed.agents.map((a) => a.compute))) for (const phase of AGENT_PHASES) agents.set({ phase, compute }, 0);
    for (const a of observed.agents) agents.set({ phase: a.phase, compute: a.compute }, a.count);
    databaseUp.set(1);
  }

  return {
    recorder: {
      httpRequest({ method, route, status, seconds }) {
        httpRequests.inc({ method, route, status: String(status) });
        httpDuration.observe({ method, route }, seconds);
      },
      workAttempt({ kind, outcome, reason }) {
        attempts.inc({ kind, outcome, reason });
      },
      deployFinished({ compute, harness, outcome, seconds }) {
        deployDuration.observe({ compute, harness, outcome }, seconds);
      },
      discoveryCall({ driver, outcome }) {
        discoveryCalls.inc({ driver, outcome });
      },
    },
    async exposition() {
      await observeState();
      return registry.metrics();
    },
    contentType: registry.contentType,
  };
}
