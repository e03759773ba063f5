import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from '../apps/runtime/src/free-port.ts';

/** Debian's `prometheus` package (.ci/run installs it when missing; docs/testing.md). */
const PROMETHEUS_BINARY = '/usr/bin/prometheus';
const PROMTOOL_BINARY = '/usr/bin/promtool';

function requireBinary(path: string): void {
  if (!existsSync(path)) throw new Error(`${path} is missing: install Debian's prometheus package (apt-get install prometheus; .ci/run does).`);
}

/** One sample of a text exposition: `name{labels} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/;
const LABEL_PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a Prometheus text exposition (format 0.0.4); comments and blank lines skipped. */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE_LINE.exec(line);
    if (!match) throw new Error(`not an exposition sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(LABEL_PAIR)) labels[pair[1]!] = pair[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when none is, an error when several are. */
export function sampleValue(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/** `promtool check metrics` on an exposition (fed on standard input): its exit code and what it said. */
export function promtoolCheckMetrics(exposition: string): Promise<{ code: number | null; output: string }> {
  requireBinary(PROMTOOL_BINARY);
  return new Promise((resolve, reject) => {
    const child = spawn(PROMTOOL_BINARY, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
    child.stdin.end(exposition);
  });
}

/** One element of an instant query's vector. */
export interface PromVectorSample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface RealPrometheus {
  /** Its HTTP API, e.g. http://127.0.0.1:41234. */
  readonly url: string;
  /** An instant query through `/api/v1/query`: the result vector. */
  query(expr: string): Promise<PromVectorSample[]>;
  /** Queries until `accept` takes the result (or `timeoutMs` passes: the last result in the error). */
  waitFor(expr: string, accept: (result: PromVectorSample[]) => boolean, timeoutMs?: number): Promise<PromVectorSample[]>;
  /** What it logged (standard error), for a failure's message. */
  log(): string;
  close(): Promise<void>;
}

/**
 * A real Prometheus (Debian's) on a free loopback port, scraping `targets` (`host:port`, the
 * path `/metrics`) every second, its TSDB in a temporary directory removed on close.
 */
export async function startPrometheus(targets: readonly string[], scrapeIntervalSeconds = 1): Promise<RealPrometheus> {
  requireBinary(PROMETHEUS_BINARY);
  const dir = mkdtempSync(join(tmpdir(), 'occ-prometheus-'));
  const config = join(dir, 'prometheus.yml');
  // JSON is YAML: no YAML writer needed for a config this small.
  writeFileSync(
    config,
    JSON.stringify({
      global: { scrape_interval: `${scrapeIntervalSeconds}s`, evaluation_interval: `${scrapeIntervalSeconds}s` },
      scrape_configs: [{ job_name: 'occ', scrape_interval: `${scrapeIntervalSeconds}s`, scrape_timeout: `${scrapeIntervalSeconds}s`, static_configs: [{ targets }] }],
    }),
  );
  const port = await freeLoopbackPort();
  const url = `http://127.0.0.1:${port}`;
  let stderr = '';
  const child: ChildProcess = spawn(
    PROMETHEUS_BINARY,
    [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk).slice(-20_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killed = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killed);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}): ${stderr}`);
      const ready = await fetch(`${url}/-/ready`).then(
        (res) => res.ok,
        () => false,
      );
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`prometheus was not ready within 30 s: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (error) {
    await close();
    throw error;
  }

  const query = async (expr: string): Promise<PromVectorSample[]> => {
    const res = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: expr })}`);
    const body = (await res.json()) as { status: string; data?: { resultType: string; result: PromVectorSample[] }; error?: string };
    if (body.status !== 'success' || !body.data) throw new Error(`query ${expr}: ${body.error ?? res.status}`);
    return body.data.result;
  };
  return {
    url,
    query,
    async waitFor(expr, accept, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      let last: PromVectorSample[] = [];
      for (;;) {
        last = await query(expr);
        if (accept(last)) return last;
        if (Date.now() > deadline) throw new Error(`${expr} never matched within ${timeoutMs} ms; last result ${JSON.stringify(last)}; prometheus log: ${stderr}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    log: () => stderr,
    close,
  };
}
