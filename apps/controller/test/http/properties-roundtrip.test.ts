import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '@occ/contracts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';
import { adminCreate, buildWorld, uniqueName, type World } from '../../../../test-support/world.ts';
import { anyConfigValuesArb, approversArb, configValuesArb, nameArb, secretValueArb, validPluginMapArb, VALID_BODIES } from '../../../../test-support/arbitraries.ts';
import { responseProblems } from '../../../../test-support/route-fixtures.ts';

/**
 * [V-3] [V-2] [V-8] Valid inputs, generated from the schema vocabulary, round-trip unchanged:
 * what a create/PATCH accepted is exactly what GET returns (JSON equality: what was sent is
 * JSON.parse(JSON.stringify(x))). Inputs outside the storable vocabulary may be refused with a
 * 400 naming the field, never with a 5xx, and never accepted-then-altered.
 */
const FC = { numRuns: 100, interruptAfterTimeLimit: 20_000 };
const statusOf = (code: string) => (ERROR_STATUS as Record<string, number>)[code];
const json = <T>(v: T): T => JSON.parse(JSON.stringify(v));
/** Generated names made unique at send time (fast-check replays values while shrinking). */
const fresh = (name: string) => `${Array.from(name).slice(0, 150).join('')}-${uniqueName('u')}`;
const freshBody = <T extends Record<string, unknown>>(b: T): T => ({ ...b, name: fresh(b.name as string) });

describe('[V-3] round-trips of valid bodies', () => {
  let t: TestController;
  let w: World;
  let ns: string;
  beforeAll(async () => {
    t = await startTestController();
    w = await buildWorld(t);
    ns = `/namespaces/${w.nsA}`;
  });
  afterAll(async () => t?.close());

  /** The value the server will use: opened through the SecretDriver, as only the server can. */
  const storedSecretValue = async (id: string) => {
    const record = await t.controller.deps.state.read((uow) => uow.secrets.get(w.nsA, id));
    expect(record).not.toBeNull();
    return t.controller.deps.secrets.withValue(record!, { namespaceId: w.nsA, secretId: id }, async (v) => v);
  };

  it('[V-2] [V-3] Agents: plugin maps valid for the harness driver, approvers and harnessAuth are stored and read back exactly', async () => {
    await fc.assert(
      fc.asyncProperty(VALID_BODIES.createAgent!(w), async (generated) => {
        const body = freshBody(generated);
        const created = await t.request({ method: 'POST', url: `${ns}/agents`, body });
        expect(created.status, created.raw).toBe(201);
        const got = await t.request({ method: 'GET', url: `${ns}/agents/${created.body.data.id}` });
        for (const agent of [created.body.data, got.body.data]) {
          expect(agent.plugins).toEqual(json(body.plugins ?? {}));
          expect(agent.pluginApprovers).toEqual(body.pluginApprovers === undefined ? null : json(body.pluginApprovers));
          expect(agent.harnessAuth).toEqual(body.harnessAuth ?? null);
          expect(agent.name).toBe(body.name);
          expect(agent.harness).toBe(body.harness);
        }
      }),
      FC,
    );
  });

  it.each(['openclaw', 'codex'] as const)('[V-8] %s Agent PATCH: a map replaces, omission preserves, {} clears', async (harness) => {
    const agent = await adminCreate(t, `${ns}/agents`, {
      name: uniqueName('rt'),
      configurationId: w.cfgA,
      harness,
      ...(harness === 'codex' ? { harnessAuth: { method: 'codex_pat', secretId: w.secretA } } : {}),
    });
    const url = `${ns}/agents/${agent.id}`;
    const approvers = harness === 'codex' ? fc.option(approversArb, { nil: null }) : fc.constant(undefined);
    await fc.assert(
      fc.asyncProperty(validPluginMapArb(harness), approvers, nameArb, async (plugins, pluginApprovers, generated) => {
        const name = fresh(generated);
        const patched = await t.request({ method: 'PATCH', url, body: { plugins, ...(pluginApprovers !== undefined ? { pluginApprovers } : {}) } });
        expect(patched.status, patched.raw).toBe(200);
        expect(patched.body.data.plugins).toEqual(json(plugins));
        const renamed = await t.request({ method: 'PATCH', url, body: { name } });
        expect(renamed.status, renamed.raw).toBe(200);
        const got = await t.request({ method: 'GET', url });
        expect(got.body.data.plugins).toEqual(json(plugins));
        if (pluginApprovers !== undefined) expect(got.body.data.pluginApprovers).toEqual(json(pluginApprovers));
        expect(got.body.data.name).toBe(name);
        expect(got.headers.etag).toBe(`"${got.body.data.version}"`);
      }),
      { ...FC, numRuns: 30 },
    );
    const cleared = await t.request({ method: 'PATCH', url, body: { plugins: {} } });
    expect(cleared.status).toBe(200);
    expect((await t.request({ method: 'GET', url })).body.data.plugins).toEqual({});
  });

  it('[V-3] Configurations: arbitrary JSON objects as values and secretBindings round-trip; every update bumps the generation', async () => {
    await fc.assert(
      fc.asyncProperty(VALID_BODIES.createConfiguration!(w), configValuesArb, async (generated, next) => {
        const body = freshBody(generated);
        const created = await t.request({ method: 'POST', url: `${ns}/configurations`, body });
        expect(created.status, created.raw).toBe(201);
        const url = `${ns}/configurations/${created.body.data.id}`;
        const got = await t.request({ method: 'GET', url });
        expect(got.body.data.values).toEqual(json(body.values));
        expect(got.body.data.secretBindings).toEqual(json(body.secretBindings ?? {}));
        expect(got.body.data.generation).toBe(1);
        const patched = await t.request({ method: 'PATCH', url, body: { values: next } });
        expect(patched.status, patched.raw).toBe(200);
        const again = await t.request({ method: 'GET', url });
        expect(again.body.data.values).toEqual(json(next));
        expect(again.body.data.secretBindings).toEqual(json(body.secretBindings ?? {}));
        expect(again.body.data.generation).toBe(2);
      }),
      FC,
    );
  });

  it('[V-3] Configurations with any code point (NUL, lone surrogates): stored exactly, or 400 naming a field under /values; never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(anyConfigValuesArb, async (values) => {
        const body = { name: uniqueName('anycfg'), values };
        const res = await t.request({ method: 'POST', url: `${ns}/configurations`, body });
        expect(responseProblems(res, json(body), statusOf), `${res.status} ${res.raw.slice(0, 200)}`).toEqual([]);
        if (res.status === 400) {
          expect(
            res.body.error.details.some((d: { path: string }) => d.path.startsWith('/values')),
            res.raw,
          ).toBe(true);
          return;
        }
        expect(res.status, res.raw).toBe(201);
        const got = await t.request({ method: 'GET', url: `${ns}/configurations/${res.body.data.id}` });
        expect(got.body.data.values).toEqual(json(values));
      }),
      FC,
    );
  });

  it('[V-3] Secrets: arbitrary non-NUL unicode values are sealed and opened back exactly; responses carry metadata only', async () => {
    await fc.assert(
      fc.asyncProperty(nameArb, secretValueArb, secretValueArb, async (generated, value, rotated) => {
        const name = fresh(generated);
        const created = await t.request({ method: 'POST', url: `${ns}/secrets`, body: { name, value } });
        expect(created.status, created.raw.slice(0, 200)).toBe(201);
        expect(Object.keys(created.body.data).sort()).toEqual(['createdAt', 'id', 'name', 'namespaceId', 'updatedAt', 'version']);
        expect(created.body.data.name).toBe(name);
        const id = created.body.data.id;
        expect(await storedSecretValue(id)).toBe(value);
        const patched = await t.request({ method: 'PATCH', url: `${ns}/secrets/${id}`, body: { value: rotated } });
        expect(patched.status).toBe(200);
        expect(patched.body.data.version).toBe(2);
        expect(await storedSecretValue(id)).toBe(rotated);
      }),
      FC,
    );
  });

  it('[V-3] Secrets with a lone surrogate: either refused with 400 at /value or opened back exactly, never silently altered', async () => {
    const loneArb = fc
      .tuple(secretValueArb, fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff'), fc.nat())
      .map(([v, s, i]) => v.slice(0, i % (v.length + 1)) + s + v.slice(i % (v.length + 1)))
      .filter((v) => v.length <= 65_536);
    await fc.assert(
      fc.asyncProperty(loneArb, async (value) => {
        const res = await t.request({ method: 'POST', url: `${ns}/secrets`, body: { name: uniqueName('lone'), value } });
        expect(responseProblems(res, json({ value }), statusOf)).toEqual([]);
        if (res.status === 400) {
          expect(res.body.error.details).toContainEqual(expect.objectContaining({ path: '/value' }));
          return;
        }
        expect(res.status).toBe(201);
        expect(await storedSecretValue(res.body.data.id)).toBe(value);
      }),
      { ...FC, numRuns: 20 },
    );
  });

  it('[V-3] names from the NameSchema vocabulary (unicode, 200 chars, lone surrogates) round-trip exactly or are refused at /name', async () => {
    const kinds = [
      { url: '/namespaces', body: (name: string) => ({ name }) },
      { url: '/principals', body: (name: string) => ({ kind: 'human', name }) },
      { url: '/iam/roles', body: (name: string) => ({ name, permissions: [{ action: 'read', resourceKind: 'agent' }] }) },
      { url: `/namespaces/${w.nsA}/secrets`, body: (name: string) => ({ name, value: 'v' }) },
      { url: `/principals/${w.principal}/api-keys`, body: (name: string) => ({ name }) },
    ];
    const names = fc.oneof({ weight: 4, arbitrary: nameArb }, { weight: 1, arbitrary: nameArb.map((n) => `${n.slice(0, 100)}\ud800`) });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...kinds), names, async (kind, generated) => {
        const name = kind.url.includes('api-keys') ? generated : fresh(generated);
        const res = await t.request({ method: 'POST', url: kind.url, body: kind.body(name) });
        expect(responseProblems(res, json(kind.body(name)), statusOf), res.raw.slice(0, 200)).toEqual([]);
        if (res.status === 400) {
          expect(res.body.error.details).toContainEqual(expect.objectContaining({ path: '/name' }));
          return;
        }
        expect(res.status, res.raw.slice(0, 200)).toBe(201);
        const data = res.body.data.apiKey ?? res.body.data;
        expect(data.name).toBe(name);
        if (!kind.url.includes('api-keys')) expect((await t.request({ method: 'GET', url: `${kind.url}/${data.id}` })).body.data.name).toBe(name);
      }),
      FC,
    );
  });
});
