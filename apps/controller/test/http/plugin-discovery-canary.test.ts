import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PluginDiscoveryError } from '../../src/core/ports/plugin-driver.ts';
import { codexAgent, startDiscoveryController, type DiscoverySetup } from '../../../../test-support/discovery-setup.ts';
import type { DiscoveryScript } from '../../../../test-support/spy-discovery-driver.ts';
import { SPY_CATALOG } from '../../../../test-support/spy-discovery-driver.ts';
import { adminCreate, uniqueName } from '../../../../test-support/world.ts';

/**
 * The canary test of the foundation, extended to discovery: a transient PAT, a Secret's value
 * and an Agent's bound Secret's value are canaries; discovery succeeds with them, fails in every
 * way with them (driver errors that carry them, answers that echo them, refused bodies that
 * contain them), and none appears in any response, log line, audit event or table row.
 */
const canary = (what: string) => `canary-${what}-${randomBytes(12).toString('hex')}`;
const encodings = (c: string) => [c, Buffer.from(c).toString('base64'), Buffer.from(c).toString('base64url'), Buffer.from(c).toString('hex')];

describe('[D-13] [D-17] canary: no discovery credential leaks anywhere', () => {
  let s: DiscoverySetup;
  const pat = canary('pat');
  const stored = canary('stored');
  const bound = canary('bound');
  const responses: { label: string; status: number; text: string }[] = [];
  let seenByDriver: (string | undefined)[] = [];
  let auditRows: string[] = [];
  const tableRows: string[] = [];

  beforeAll(async () => {
    s = await startDiscoveryController();
    const { t, w } = s;
    const ns = w.nsA;
    const storedSecret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('cs'), value: stored });
    const boundSecret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('cs'), value: bound });
    const agent = await codexAgent(t, ns, w.cfgA, uniqueName('canary'), boundSecret.id);
    await s.grantAgentOperate(ns, agent.id, boundSecret.id);

    const list = `/namespaces/${ns}/agents/plugins`;
    const agentList = `/namespaces/${ns}/agents/${agent.id}/plugins`;
    const secretRef = { kind: 'secret', namespaceId: ns, id: storedSecret.id };
    const credentials: [string, string, Record<string, unknown>][] = [
      ['transient PAT', list, { harness: 'codex', accessToken: pat }],
      ['stored Secret', list, { harness: 'codex', secretRef }],
      ['bound Secret', agentList, {}],
      ['transient PAT details', `${list}/details`, { harness: 'codex', accessToken: pat, pluginId: 'plugin_linear' }],
      ['bound Secret details', `${agentList}/details`, { pluginId: 'plugin_linear' }],
    ];
    // Each driver behaviour, with every credential: fine, failures that carry the credential, answers that echo it.
    const behaviours: [string, DiscoveryScript | null][] = [
      ['scripted catalog', null],
      [
        'throws an error holding the credential',
        (c) => {
          throw new Error(`upstream rejected ${c.request.credential}`);
        },
      ],
      [
        'rejects the credential',
        (c) => {
          throw Object.assign(new PluginDiscoveryError('credentials_rejected'), { detail: c.request.credential });
        },
      ],
      [
        'echoes the credential in a description',
        (c) =>
          c.op === 'list'
            ? { plugins: [{ ...SPY_CATALOG[0], description: `for ${c.request.credential}` }], nextCursor: null }
            : { ...SPY_CATALOG[1], description: `for ${c.request.credential}` },
      ],
      [
        'echoes the credential base64-free in a cursor',
        (c) => (c.op === 'list' ? { plugins: [], nextCursor: `${c.request.credential}` } : { ...SPY_CATALOG[0], remoteId: `${c.request.credential}`.slice(0, 256) }),
      ],
      ['echoes it in an extra field', (c) => ({ plugins: [], nextCursor: null, account: { token: c.request.credential } })],
    ];
    for (const [behaviour, script] of behaviours) {
      s.codex.script = script;
      for (const [label, url, body] of credentials) {
        const res = await s.post(url, body);
        responses.push({ label: `${label} / ${behaviour}`, status: res.status, text: `${JSON.stringify(res.headers)}\n${res.raw}` });
      }
    }
    s.codex.script = null;
    // Refused bodies that carry the canaries: unknown fields, wrong harness, too long, both credentials.
    const refused: [string, string, unknown][] = [
      ['unknown field', list, { harness: 'codex', accessToken: pat, note: stored }],
      ['token to a credential-free catalog', list, { harness: 'openclaw', accessToken: pat }],
      ['too long', list, { harness: 'codex', accessToken: `${pat}${'x'.repeat(16384)}` }],
      ['both credentials', list, { harness: 'codex', accessToken: pat, secretRef }],
      ['token on an existing Agent', agentList, { accessToken: pat }],
      ['canary as q on an existing Agent', agentList, { q: bound, extra: pat }],
    ];
    for (const [label, url, body] of refused) {
      const res = await s.post(url, body);
      responses.push({ label, status: res.status, text: `${JSON.stringify(res.headers)}\n${res.raw}` });
    }
    seenByDriver = s.codex.calls.map((c) => c.request.credential);

    auditRows = (await t.database.query<{ t: string }>('SELECT row_to_json(a)::text AS t FROM audit_events a')).rows.map((r) => r.t);
    const tables = (await t.database.query<{ tablename: string }>('SELECT tablename FROM pg_tables WHERE schemaname = current_schema()')).rows;
    for (const { tablename } of tables) {
      tableRows.push(...(await t.database.query<{ t: string }>(`SELECT row_to_json(x)::text AS t FROM "${tablename}" x`)).rows.map((r) => `${tablename} ${r.t}`));
    }
  });
  afterAll(async () => s?.t.close());

  const leaks = (texts: { where: string; text: string }[], needles: string[]) =>
    texts.flatMap(({ where, text }) => needles.filter((n) => text.includes(n)).map((n) => `${where} contains ${n.slice(0, 14)}…`));
  const canaries = () => [pat, stored, bound];

  it('the canaries really reached the driver, and every behaviour was answered (success, or a fixed error)', () => {
    for (const c of canaries()) expect(seenByDriver).toContain(c);
    const statuses = new Map(responses.map((r) => [r.label, r.status]));
    expect(statuses.get('transient PAT / scripted catalog')).toBe(200);
    expect(statuses.get('bound Secret / scripted catalog')).toBe(200);
    expect(statuses.get('stored Secret / throws an error holding the credential')).toBe(503);
    expect(statuses.get('bound Secret / rejects the credential')).toBe(400);
    for (const r of responses.filter((x) => x.label.includes('echoes'))) expect(r.status, r.label).toBe(503);
    for (const r of responses.filter((x) => !x.label.includes(' / '))) expect(r.status, r.label).toBe(400);
  });

  it('no canary appears in any response body or header', () => {
    expect(
      leaks(
        responses.map((r) => ({ where: `response "${r.label}"`, text: r.text })),
        canaries(),
      ),
    ).toEqual([]);
  });

  it('no canary appears in any log line', () => {
    expect(s.t.logs.length).toBeGreaterThan(responses.length);
    expect(
      leaks(
        s.t.logs.map((text, i) => ({ where: `log line ${i}`, text })),
        canaries(),
      ),
    ).toEqual([]);
  });

  it('no canary appears in any audit event, and discovery wrote none', () => {
    expect(auditRows.some((r) => r.includes('secrets.create'))).toBe(true);
    expect(auditRows.filter((r) => /plugin|discover/i.test(JSON.parse(r).action))).toEqual([]);
    expect(
      leaks(
        auditRows.map((text, i) => ({ where: `audit event ${i}`, text })),
        canaries(),
      ),
    ).toEqual([]);
  });

  it('no canary is stored anywhere (plain, base64 or hex): discovery persists no credential', () => {
    expect(tableRows.length).toBeGreaterThan(0);
    expect(
      leaks(
        tableRows.map((text, i) => ({ where: `row ${i}`, text })),
        canaries().flatMap(encodings),
      ),
    ).toEqual([]);
  });
});
