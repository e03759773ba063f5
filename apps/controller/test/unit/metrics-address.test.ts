import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { composeController } from '../../src/composition/compose.ts';
import { parseMetricsAddress, startMetricsListener } from '../../src/composition/metrics.ts';
import type { Database } from '../../src/state/database.ts';
import { parseExposition, sampleValue } from '../../../../test-support/prometheus.ts';

/** A database that is never reachable: the listener reads it only when scraped. */
const unreachable = {
  kind: 'postgres',
  query: () => Promise.reject(new Error('connection refused')),
  exec: () => Promise.reject(new Error('connection refused')),
  transaction: () => Promise.reject(new Error('connection refused')),
  close: async () => {},
} as Database;

describe('OCC_METRICS_ADDRESS (docs/observability.md)', () => {
  it('is off when unset or empty, and takes host:port, an IPv6 host in brackets, port 0 for any free port', () => {
    expect(parseMetricsAddress(undefined)).toBeNull();
    expect(parseMetricsAddress('')).toBeNull();
    expect(parseMetricsAddress('127.0.0.1:9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(parseMetricsAddress('[::1]:9464')).toEqual({ host: '::1', port: 9464 });
    expect(parseMetricsAddress('metrics.internal:0')).toEqual({ host: 'metrics.internal', port: 0 });
  });

  it.each(['9464', '127.0.0.1', ':9464', '127.0.0.1:65536', '127.0.0.1:-1', 'http://127.0.0.1:9464', '127.0.0.1:9464/metrics', '::1:9464', 'host name:1'])(
    'refuses %j, naming the setting',
    (value) => {
      expect(() => parseMetricsAddress(value)).toThrow(/^OCC_METRICS_ADDRESS must be host:port/);
    },
  );

  it('stops the controller from starting, before any database is opened', async () => {
    await expect(composeController({ metricsAddress: 'localhost' })).rejects.toThrow(/^OCC_METRICS_ADDRESS must be host:port/);
  });

  it('stops startup when the address cannot be bound, naming the setting', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      await expect(startMetricsListener({ host: '127.0.0.1', port }, unreachable)).rejects.toThrow(`OCC_METRICS_ADDRESS: cannot listen on 127.0.0.1:${port} (EADDRINUSE).`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('still answers a scrape when the database cannot be read: occ_database_up 0, no state gauges, the rest as ever', async () => {
    const failures: string[] = [];
    const listener = await startMetricsListener({ host: '127.0.0.1', port: 0 }, unreachable, (event) => failures.push(event));
    try {
      // prom-client counts the CPU used since its registry was made: under load a scrape right after can find none
      // (CI saw 0), so some is spent first.
      const spent = process.cpuUsage().user + 20_000;
      while (process.cpuUsage().user < spent) Math.sqrt(Math.random());
      const res = await fetch(listener.url);
      expect(res.status).toBe(200);
      const samples = parseExposition(await res.text());
      expect(sampleValue(samples, 'occ_database_up')).toBe(0);
      expect(samples.filter((s) => s.name === 'occ_work_queue_depth' || s.name === 'occ_agents')).toEqual([]);
      expect(sampleValue(samples, 'occ_process_cpu_user_seconds_total')).toBeGreaterThan(0);
      expect(failures).toEqual(['metrics.state_unread']);
    } finally {
      await listener.close();
    }
  });
});
