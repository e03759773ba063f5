import type { Metrics } from '../core/ports/metrics.ts';
import { readObservedState } from '../core/use-cases/observed-state.ts';
import { createPrometheusMetrics } from '../drivers/metrics/prometheus/index.ts';
import { listenForScrapes } from '../drivers/metrics/prometheus/listener.ts';
import type { Database } from '../state/database.ts';
import { createStateStore } from '../state/state-store.ts';

/** The setting that turns the metrics listener on (docs/observability.md). */
const METRICS_ADDRESS_SETTING = 'OCC_METRICS_ADDRESS';

export interface MetricsAddress {
  host: string;
  port: number;
}

export interface MetricsListener {
  /** What this process records through (the controller's deps and its worker share it). */
  readonly recorder: Metrics;
  /** The scrape URL as bound (`http://127.0.0.1:9464/metrics`). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * `OCC_METRICS_ADDRESS`: `host:port` (an IPv6 host in brackets, `[::1]:9464`; port 0 = any free
 * port). Unset or empty: no listener (the default). Anything else stops startup, naming the setting.
 */
export function parseMetricsAddress(value: string | undefined): MetricsAddress | null {
  if (value === undefined || value.trim() === '') return null;
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):([0-9]{1,5})$/.exec(value.trim());
  const port = match ? Number(match[3]) : Number.NaN;
  if (!match || port > 65_535) throw new Error(`${METRICS_ADDRESS_SETTING} must be host:port, e.g. 127.0.0.1:9464 (port 0 = any free port), not "${value}".`);
  return { host: (match[1] ?? match[2])!, port };
}

/**
 * Starts this process's metrics: a prom-client registry, its recorder, and the listener serving
 * it at `address`, apart from the API. The work queue and Agent gauges are read from `database`
 * at each scrape. A listener that cannot bind stops startup, naming the setting.
 */
export async function startMetricsListener(address: MetricsAddress, database: Database, log?: (event: string, fields: Record<string, unknown>) => void): Promise<MetricsListener> {
  const state = createStateStore(database);
  const metrics = createPrometheusMetrics({
    observe: () => readObservedState(state),
    onObserveFailure: (error) => log?.('metrics.state_unread', { error: (error as Error).name }),
  });
  let listener: Awaited<ReturnType<typeof listenForScrapes>>;
  try {
    listener = await listenForScrapes(metrics, address.host, address.port);
  } catch (error) {
    throw new Error(`${METRICS_ADDRESS_SETTING}: cannot listen on ${address.host}:${address.port} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
  }
  return { recorder: metrics.recorder, url: `http://${listener.address}/metrics`, close: () => listener.close() };
}
