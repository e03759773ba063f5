import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeController, type ComposedController } from '../apps/controller/src/composition/compose.ts';
import { bootstrapInstallation } from '../apps/controller/src/core/use-cases/installation.ts';
import type { Database } from '../apps/controller/src/state/database.ts';
import { createPgDatabase } from '../apps/controller/src/state/pg-database.ts';
import type { Effect } from './scripted-compute.ts';
import { createScriptedCompute } from './scripted-compute.ts';
import { waitFor as pollUntil } from './deploy-helpers.ts';

export interface ApiWorld {
  controller: ComposedController;
  database: Database;
  /** Connection string confined to this test's schema, for worker processes. */
  schemaUrl: string;
  effectLog: string;
  key: string;
  ns: string;
  request(method: 'GET' | 'POST', url: string, body?: unknown): Promise<{ status: number; body: any }>;
  effects(): Effect[];
  close(): Promise<void>;
}

/** An API (no in-process worker) on a private schema of `baseUrl`, for multi-process tests. */
export async function startApiWorld(baseUrl: string): Promise<ApiWorld> {
  const schema = `rel_${randomBytes(6).toString('hex')}`;
  const admin = createPgDatabase({ connectionString: baseUrl });
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.close();
  const schemaUrl = `${baseUrl}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  const database = createPgDatabase({ connectionString: baseUrl, schema });
  const controller = await composeController({ database, secretKey: randomBytes(32), compute: createScriptedCompute(), worker: false });
  const boot = await bootstrapInstallation(controller.deps);
  if (!boot.created) throw new Error('schema already bootstrapped');
  const effectLog = join(mkdtempSync(join(tmpdir(), 'occ-effects-')), 'effects.jsonl');
  return {
    controller,
    database,
    schemaUrl,
    effectLog,
    key: boot.adminKey,
    ns: boot.defaultNamespaceId,
    async request(method, url, body) {
      const res = await controller.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${boot.adminKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
      return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
    },
    effects: () => {
      if (!existsSync(effectLog)) return [];
      // Each effect is logged at its start and its end: the last line of an effect wins.
      const byEffect = new Map<string, Effect>();
      for (const line of readFileSync(effectLog, 'utf8').split('\n').filter(Boolean)) {
        const e = JSON.parse(line) as Effect;
        byEffect.set(`${e.pid}:${e.op}:${e.revisionId}:${e.startedAt}`, e);
      }
      return [...byEffect.values()];
    },
    async close() {
      await controller.close();
      await database.close();
      const cleanup = createPgDatabase({ connectionString: baseUrl });
      await cleanup.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
      await cleanup.close();
    },
  };
}

/** A Configuration and `count` openclaw Agents in the default Namespace. */
export async function createAgents(world: ApiWorld, count: number): Promise<string[]> {
  const cfg = await world.request('POST', `/namespaces/${world.ns}/configurations`, { name: `cfg-${randomBytes(3).toString('hex')}`, values: {} });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const agent = await world.request('POST', `/namespaces/${world.ns}/agents`, {
      name: `agent-${i}-${randomBytes(3).toString('hex')}`,
      configurationId: cfg.body.data.id,
      harness: 'openclaw',
    });
    if (agent.status !== 201) throw new Error(`agent create → ${agent.status}`);
    ids.push(agent.body.data.id);
  }
  return ids;
}

/** Polls `probe` until it yields something truthy (the shared poller, truthiness as the test). */
export const waitFor = <T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 60_000, everyMs = 100): Promise<T> =>
  pollUntil(what, probe, (value) => Boolean(value), timeoutMs, everyMs) as Promise<T>;
