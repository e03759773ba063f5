import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labelFilter, LABELS } from '../../src/drivers/compute/docker/container-spec.ts';
import { waitFor } from '../../../../test-support/deploy-helpers.ts';
import { buildStandInRuntimeImage } from '../../../../test-support/docker/stand-in-runtime-image.ts';
import { ensureTestRuntimeImage } from '../../../../test-support/docker/test-runtime-image.ts';
import { startOccUp, type RunningOccUp } from '../../../../test-support/occ-up.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test-support/test-database.ts';
import { removeInstallationObjects } from '../../../../test-support/docker/remove-installation.ts';

// Two real `occ up` processes (each an API and a reconcile worker) on one PostgreSQL with the
// docker ComputeDriver on the real engine: 20 Agents deployed through both APIs at once. The
// containers run the stand-in runtime (the real image's Node, user and preload; no OpenClaw):
// what is proven is coordination — claims, Recreate, naming — not installs.
const AGENTS = 20;
const docker = new Docker();
const installation = `t${randomBytes(4).toString('hex')}`;
let test: TestDatabase;
let dir: string;
const controllers: RunningOccUp[] = [];

async function api(server: string, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

beforeAll(async () => {
  const image = buildStandInRuntimeImage(await ensureTestRuntimeImage());
  test = await createTestDatabase();
  dir = mkdtempSync(join(tmpdir(), 'occ-two-controllers-'));
  const env = {
    ...process.env,
    DATABASE_URL: test.connectionString!,
    OCC_SECRET_KEY: randomBytes(32).toString('base64'),
    OCC_COMPUTE_DRIVER: 'docker',
    OCC_RUNTIME_IMAGE: image,
    OCC_DOCKER_INSTALLATION: installation,
    OCC_DOCKER_MEMORY: '256m',
    OCC_DOCKER_CPUS: '0.5',
  };
  controllers.push(await startOccUp(join(dir, 'a'), env));
  controllers.push(await startOccUp(join(dir, 'b'), env, { firstOnDatabase: false }));
}, 900_000);

afterAll(async () => {
  await removeInstallationObjects(docker, installation);
  for (const c of controllers) await c.stop();
  await test?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('two controllers, one database, the docker ComputeDriver', () => {
  it(`deploy ${AGENTS} Agents through both APIs at once: every deploy succeeds, each Agent has exactly one container, running its active revision`, async () => {
    const [a, b] = controllers as [RunningOccUp, RunningOccUp];
    const key = a.adminKey;
    const ns = (await api(a.server, key, 'GET', '/namespaces')).data.items[0].id;
    const cfg = (await api(a.server, key, 'POST', `/namespaces/${ns}/configurations`, { name: `c-${installation}`, values: { standIn: { preparingMs: 100 } } })).data;
    const agents: string[] = [];
    for (let i = 0; i < AGENTS; i += 1) {
      agents.push(
        (await api(a.server, key, 'POST', `/namespaces/${ns}/agents`, { name: `a-${i}-${installation}`, configurationId: cfg.id, harness: 'openclaw', plugins: {} })).data.id,
      );
    }
    const started = Date.now();
    // Every deploy at once, half through each controller.
    const revisions = await Promise.all(agents.map(async (id, i) => (await api((i % 2 ? b : a).server, key, 'POST', `/namespaces/${ns}/agents/${id}/deploy`)).data.id as string));
    const states = await waitFor(
      'every deployment to end',
      () =>
        Promise.all(
          agents.map(async (id, i) => (await api((i % 2 ? a : b).server, key, 'GET', `/namespaces/${ns}/agents/${id}/deployments/${revisions[i]}`)).data.state as string),
        ),
      (all) => all.every((state) => state !== 'queued' && state !== 'running'),
      600_000,
      500,
    );
    console.log(`${AGENTS} docker deploys through two controllers: ${Date.now() - started} ms`);
    expect(states).toEqual(agents.map(() => 'succeeded'));

    const containers = await docker.listContainers({ all: true, filters: { label: labelFilter(installation) } });
    // No duplicate: one container per Agent, each running the revision its pointer names.
    expect(containers).toHaveLength(AGENTS);
    expect(new Set(containers.map((c) => c.Labels[LABELS.agentId])).size).toBe(AGENTS);
    // Each Agent on a network of its own, made once although both processes deployed at once.
    const networks = await docker.listNetworks({ filters: { label: labelFilter(installation) } });
    expect(networks.map((n) => n.Labels?.[LABELS.agentId]).sort()).toEqual([...agents].sort());
    expect(new Set(networks.map((n) => n.IPAM?.Config?.[0]?.Subnet)).size).toBe(AGENTS);
    for (const [i, id] of agents.entries()) {
      const agent = (await api(b.server, key, 'GET', `/namespaces/${ns}/agents/${id}`)).data;
      expect(agent.activeRevisionId).toBe(revisions[i]);
      const mine = containers.filter((c) => c.Labels[LABELS.agentId] === id);
      expect(mine.map((c) => [c.Labels[LABELS.revisionId], c.State])).toEqual([[revisions[i], 'running']]);
    }
    // No lost and no doubled deploy: one reconcile item per revision, each succeeded once; both
    // processes' workers took a share (the last claimer of each item is kept).
    const { rows } = await test.db.query<{ revision_id: string; state: string; claimed_by: string }>(
      'SELECT revision_id, state, claimed_by FROM work_items WHERE revision_id IS NOT NULL',
    );
    expect(rows.map((r) => r.revision_id).sort()).toEqual([...revisions].sort());
    expect(rows.every((r) => r.state === 'succeeded')).toBe(true);
    const counts = new Map<string, number>();
    for (const row of rows) counts.set(row.claimed_by, (counts.get(row.claimed_by) ?? 0) + 1);
    const shares = [...counts.values()];
    console.log(`work per worker: ${JSON.stringify(shares)}`);
    expect(shares).toHaveLength(2);
  }, 900_000);
});
