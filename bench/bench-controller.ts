import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeController } from '../apps/controller/src/composition/compose.ts';
import { createComputeDriver } from '../apps/controller/src/composition/compute-drivers.ts';
import { bootstrapInstallation } from '../apps/controller/src/core/use-cases/installation.ts';
import type { WorkerSettings } from '../apps/controller/src/worker/worker-deps.ts';
import { openBenchDatabase } from './bench-database.ts';

export interface BenchController {
  dataDir: string;
  namespaceId: string;
  /** One API call as the bootstrap admin; throws unless the status is `expected`; returns `data`. */
  call(method: string, path: string, body?: unknown, expected?: number): Promise<any>;
  /** The same request as `call`, answered raw (a streamed answer, e.g. an Agent's reply). */
  request(method: string, path: string, body?: unknown): Promise<Response>;
  close(): Promise<void>;
}

/**
 * A fresh in-process controller and worker on a ComputeDriver (default local), with its own bench
 * database and data directory, listening on a loopback port: what a deploy bench deploys through.
 */
export async function startBenchController(env: NodeJS.ProcessEnv, worker: Partial<WorkerSettings>, driver = 'local'): Promise<BenchController> {
  const dataDir = mkdtempSync(join(tmpdir(), 'occ-bench-controller-'));
  const { database, dispose } = await openBenchDatabase();
  const compute = (await createComputeDriver(driver, { dataDir, env }))!;
  const controller = await composeController({ database, secretKey: randomBytes(32), compute, worker: { settings: worker } });
  const close = async () => {
    await controller.close();
    await dispose();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const boot = await bootstrapInstallation(controller.deps);
    if (!boot.created) throw new Error('bench database already bootstrapped');
    const base = await controller.app.listen({ port: 0, host: '127.0.0.1' });
    const auth = { authorization: `Bearer ${boot.adminKey}` };
    const request = (method: string, path: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: body !== undefined ? { ...auth, 'content-type': 'application/json' } : auth,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    const call = async (method: string, path: string, body?: unknown, expected = 200) => {
      const res = await request(method, path, body);
      const text = await res.text();
      if (res.status !== expected) throw new Error(`${method} ${path} → ${res.status} ${text}`);
      return (JSON.parse(text) as { data: any }).data;
    };
    return { dataDir, namespaceId: boot.defaultNamespaceId, call, request, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Polls a deployment every `everyMs` until it ends; returns its final state. */
export async function waitForDeployment(bench: BenchController, agentUrl: string, revisionId: string, everyMs: number): Promise<{ state: string }> {
  for (;;) {
    const status = (await bench.call('GET', `${agentUrl}/deployments/${revisionId}`)) as { state: string };
    if (status.state === 'succeeded' || status.state === 'failed') return status;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
