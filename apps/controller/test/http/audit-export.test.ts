import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormatRegistry } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { AUDIT_EXPORT_CURSOR_HEADER, AuditEventSchema, type AuditEvent } from '@occ/contracts';
import { auditEvent } from '../../src/core/audit/record.ts';
import { auditRepository } from '../../src/state/repositories/audit.ts';
import { startTestController, type TestController, type TestResponse } from '../../../../test-support/test-controller.ts';
import { waitFor } from '../../../../test-support/deploy-helpers.ts';
import { adminCreate, grant, newPrincipal, uniqueName } from '../../../../test-support/world.ts';

/**
 * The audit log's filters (GET /audit-events?…) and its export (GET /audit-events/export) over
 * HTTP on PostgreSQL, the late-commit case with two real connections included. The same SQL on
 * both engines: test/state/audit-export.test.ts. A collector through outages and a restart:
 * audit-export-collector.test.ts.
 */
// The format the list's response schema names (work-outcome-registry.test.ts registers it alike).
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (value) => !Number.isNaN(Date.parse(value)));
const isEvent = TypeCompiler.Compile(AuditEventSchema);

interface ExportPage {
  events: AuditEvent[];
  next: string;
  res: TestResponse;
}

describe('audit filters and export', () => {
  let t: TestController;
  let adminId: string;
  beforeAll(async () => {
    t = await startTestController();
    adminId = (await t.request({ method: 'GET', url: '/whoami' })).body.data.principal.id;
  });
  afterAll(async () => t?.close());

  const list = async (query: string, key?: string) => t.request({ method: 'GET', url: `/audit-events?${query}`, ...(key ? { key } : {}) });
  const listed = async (query: string): Promise<AuditEvent[]> => {
    const res = await list(query);
    expect(res.status, res.raw).toBe(200);
    return res.body.data.items;
  };

  async function exportPage(cursor?: string, limit?: number, key?: string): Promise<ExportPage> {
    const query = new URLSearchParams({ ...(cursor ? { cursor } : {}), ...(limit ? { limit: String(limit) } : {}) }).toString();
    const res = await t.request({ method: 'GET', url: `/audit-events/export${query ? `?${query}` : ''}`, ...(key ? { key } : {}) });
    expect(res.status, res.raw).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const lines = res.raw === '' ? [] : res.raw.split('\n');
    // Every line ends in a newline: the last split is empty.
    if (lines.length > 0) expect(lines.pop()).toBe('');
    const events = lines.map((line) => JSON.parse(line) as AuditEvent);
    for (const e of events) expect(isEvent.Check(e), JSON.stringify(e)).toBe(true);
    const next = String(res.headers[AUDIT_EXPORT_CURSOR_HEADER]);
    expect(next).toMatch(/^[A-Za-z0-9_-]+$/);
    return { events, next, res };
  }

  /** Everything after `cursor`, page by page, until a page comes back empty. */
  async function exportAll(cursor?: string, limit = 1000): Promise<{ events: AuditEvent[]; cursor: string }> {
    const events: AuditEvent[] = [];
    let at = cursor;
    for (;;) {
      const page = await exportPage(at, limit);
      events.push(...page.events);
      if (page.events.length === 0) return { events, cursor: page.next };
      at = page.next;
    }
  }

  /** The export after `cursor` once it holds the event `id` (another database's open transaction may hold the cluster's watermark back a moment). */
  const exportUntil = (cursor: string | undefined, id: string, limit = 1000) =>
    waitFor(
      `event ${id} in the export`,
      () => exportAll(cursor, limit),
      (all) => all.events.some((e) => e.id === id),
      30_000,
      50,
    );

  /** A cursor after every event committed so far. */
  async function caughtUp(): Promise<string> {
    const ns = await adminCreate(t, '/namespaces', { name: uniqueName('mark') });
    const latest = (await listed(`resourceId=${ns.id}`))[0]!;
    return (await exportUntil(undefined, latest.id)).cursor;
  }

  const tableIds = async (order: string) => (await t.database.query<{ id: string }>(`SELECT id FROM audit_events ORDER BY ${order}`)).rows.map((r) => r.id);

  describe('filters on GET /audit-events', () => {
    let nsA: string;
    let nsB: string;
    let other: { id: string; key: string };
    let secretA: string;
    let start: string;

    beforeAll(async () => {
      start = new Date().toISOString();
      other = await newPrincipal(t);
      await grant(t, other.id, [{ action: 'create', resourceKind: 'namespace' }], {});
      nsA = (await adminCreate(t, '/namespaces', { name: uniqueName('flt') })).id;
      secretA = (await adminCreate(t, `/namespaces/${nsA}/secrets`, { name: uniqueName('s'), value: 'v' })).id;
      expect((await t.request({ method: 'PATCH', url: `/namespaces/${nsA}/secrets/${secretA}`, body: { value: 'v2' } })).status).toBe(200);
      await adminCreate(t, `/namespaces/${nsA}/configurations`, { name: uniqueName('c'), values: {} });
      const byOther = await t.request({ method: 'POST', url: '/namespaces', key: other.key, body: { name: uniqueName('flt') } });
      expect(byOther.status).toBe(201);
      nsB = byOther.body.data.id;
    });

    it('by actor, action (exact or prefix), Namespace, resource and time, combined with AND', async () => {
      expect((await listed(`actorId=${other.id}`)).map((e) => [e.action, e.resource?.id])).toEqual([['namespaces.create', nsB]]);
      expect((await listed(`namespaceId=${nsA}`)).map((e) => e.action)).toEqual(['configurations.create', 'secrets.update', 'secrets.create', 'namespaces.create']);
      expect((await listed(`namespaceId=${nsA}&action=secrets.*`)).map((e) => e.action)).toEqual(['secrets.update', 'secrets.create']);
      expect((await listed(`namespaceId=${nsA}&action=secrets.update`)).map((e) => e.action)).toEqual(['secrets.update']);
      expect((await listed(`resourceKind=secret&resourceId=${secretA}`)).map((e) => e.action)).toEqual(['secrets.update', 'secrets.create']);
      expect(await listed(`resourceKind=agent&resourceId=${secretA}`)).toEqual([]);
      expect((await listed(`actorId=${adminId}&action=namespaces.*&since=${start}`)).map((e) => e.resource?.id)).toContain(nsA);
      expect((await listed(`actorId=${adminId}&action=namespaces.*&since=${start}`)).map((e) => e.resource?.id)).not.toContain(nsB);
      expect(await listed(`namespaceId=${nsA}&until=${start}`)).toEqual([]);
      expect(await listed(`namespaceId=${nsA}&since=${encodeURIComponent('2999-01-01T00:00:00+15:00')}`)).toEqual([]);
      // An offset beyond what PostgreSQL reads (up to ±15:59) is converted, not refused.
      expect((await listed(`namespaceId=${nsA}&since=${encodeURIComponent('2000-01-01T23:59:59.123456789-23:59')}`)).length).toBe(4);
    });

    it('pages under filters; a cursor taken under other filters is refused at /cursor', async () => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const res: TestResponse = await list(`namespaceId=${nsA}&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status, res.raw).toBe(200);
        ids.push(...res.body.data.items.map((e: AuditEvent) => e.id));
        cursor = res.body.data.nextCursor;
        if (cursor) {
          for (const otherFilters of [`namespaceId=${nsB}`, `namespaceId=${nsA}&action=secrets.*`, '']) {
            const refused = await list(`${otherFilters}&limit=1&cursor=${cursor}`);
            expect(refused.status, otherFilters).toBe(400);
            expect(refused.body.error.details).toEqual([{ path: '/cursor', code: 'INVALID_VALUE' }]);
          }
        }
      } while (cursor !== null);
      expect(ids).toEqual((await listed(`namespaceId=${nsA}`)).map((e) => e.id));
      expect(ids).toHaveLength(4);
      // The same filters in another order are the same filters.
      const first = (await list(`namespaceId=${nsA}&action=secrets.*&limit=1`)).body.data.nextCursor;
      expect((await list(`action=secrets.*&limit=1&namespaceId=${nsA}&cursor=${first}`)).status).toBe(200);
    });

    it.each([
      ['actorId=alice', '/actorId', 'INVALID_FORMAT'],
      ['action=agents.', '/action', 'INVALID_FORMAT'],
      ['action=agents.**', '/action', 'INVALID_FORMAT'],
      ['action=*', '/action', 'INVALID_FORMAT'],
      ['action=Agents.create', '/action', 'INVALID_FORMAT'],
      ['namespaceId=team-a', '/namespaceId', 'INVALID_FORMAT'],
      ['resourceKind=Agent', '/resourceKind', 'INVALID_FORMAT'],
      ['resourceId=a%20b', '/resourceId', 'INVALID_FORMAT'],
      ['since=yesterday', '/since', 'INVALID_FORMAT'],
      ['since=2024-01-01', '/since', 'INVALID_FORMAT'],
      ['since=2024-01-01T00:00:00', '/since', 'INVALID_FORMAT'],
      // An unencoded `+` is a space in a query string.
      ['since=2024-01-01T00:00:00+01:00', '/since', 'INVALID_FORMAT'],
      ['until=2024-13-01T00:00:00Z', '/until', 'INVALID_FORMAT'],
      ['since=2023-02-29T00:00:00Z', '/since', 'INVALID_VALUE'],
      ['since=0000-01-01T00:00:00Z', '/since', 'INVALID_VALUE'],
      ['until=2024-04-31T00:00:00Z', '/until', 'INVALID_VALUE'],
      ['since=2024-05-02T00:00:00Z&until=2024-05-01T23:59:59Z', '/until', 'INVALID_COMBINATION'],
      ['actorId=a&actorId=b', '/actorId', 'INVALID_TYPE'],
      ['limit=201', '/limit', 'INVALID_VALUE'],
      ['colour=red', '/colour', 'UNKNOWN_FIELD'],
    ])('%s → 400 naming %s', async (query, path, code) => {
      const res = await list(query);
      expect(res.status, res.raw).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.details).toContainEqual({ path, code });
    });

    it('a leap day and a leap second are timestamps', async () => {
      expect((await list('since=2024-02-29T23:59:60Z')).status).toBe(200);
      expect((await list('since=2024-02-29t10:00:00.5z&until=2024-03-01T00:00:00Z')).status).toBe(200);
    });
  });

  describe('GET /audit-events/export', () => {
    it('is Installation administration, like the list', async () => {
      const p = await newPrincipal(t);
      const refused = await t.request({ method: 'GET', url: '/audit-events/export', key: p.key });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
      await grant(t, p.id, [{ action: 'administer', resourceKind: 'installation' }], {});
      // The first page is empty while another database's open transaction holds the watermark below every event.
      await caughtUp();
      expect((await exportPage(undefined, 1, p.key)).events).toHaveLength(1);
      expect((await t.request({ method: 'GET', url: '/audit-events/export', key: null })).status).toBe(401);
    });

    it('from the beginning, oldest first, every event once; an empty page answers the cursor it was asked with', async () => {
      const last = await caughtUp();
      const all = await exportAll(undefined, 7);
      const ids = all.events.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
      // Nothing else writes here: the export order is the table's (the bootstrap's events first).
      expect(ids).toEqual(await tableIds('seq'));
      expect(all.events[0]!.action).toBe('installation.bootstrap');
      // The export's last event is the list's newest, field for field.
      expect(all.events.at(-1)).toEqual((await listed('limit=1'))[0]);
      const empty = await exportPage(last);
      expect(empty.events).toEqual([]);
      expect(empty.next).toBe(last);
      expect(empty.res.raw).toBe('');

      // New events come after the cursor, and only they.
      const ns = await adminCreate(t, '/namespaces', { name: uniqueName('exp') });
      await t.request({ method: 'DELETE', url: `/namespaces/${ns.id}` });
      const after = await exportUntil(last, (await listed('limit=1'))[0]!.id);
      expect(after.events.map((e) => [e.action, e.resource?.id])).toEqual([
        ['namespaces.create', ns.id],
        ['namespaces.delete', ns.id],
      ]);
    });

    it('limit 1 to 1000; a page holds at most limit lines', async () => {
      await caughtUp();
      expect((await exportPage(undefined, 2)).events).toHaveLength(2);
      expect((await exportPage(undefined, 1000)).events.length).toBeGreaterThan(2);
      for (const limit of ['0', '1001', 'x']) {
        const res = await t.request({ method: 'GET', url: `/audit-events/export?limit=${limit}` });
        expect(res.status, limit).toBe(400);
        expect(res.body.error.details[0].path).toBe('/limit');
      }
    });

    it('refuses a cursor that is not its own, or that is ahead of this database, at /cursor', async () => {
      const listCursor = (await list('limit=1')).body.data.nextCursor;
      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const ahead = encode({ e: 'audit-export', x: '18446744073709551615', s: '1' });
      for (const cursor of [
        listCursor,
        'not-a-cursor',
        encode({ e: 'audit-export', x: '1 OR 1=1', s: '1' }),
        encode({ e: 'audit-export', x: '-1', s: '1' }),
        encode({ e: 'audit-export', x: '18446744073709551616', s: '1' }),
        encode({ e: 'audit', x: '1', s: '1' }),
        ahead,
      ]) {
        const res = await t.request({ method: 'GET', url: `/audit-events/export?cursor=${cursor}` });
        expect(res.status, `${cursor} ${res.raw}`).toBe(400);
        expect(res.body.error.details).toEqual([{ path: '/cursor', code: 'INVALID_VALUE' }]);
      }
      expect((await t.request({ method: 'GET', url: `/audit-events/export?cursor=${ahead}` })).body.error.message).toMatch(/ahead of this database/);
      // And an export cursor means nothing to the list.
      const exportCursor = (await exportPage(undefined, 1)).next;
      expect((await list(`cursor=${exportCursor}`)).status).toBe(400);
    });

    it('never carries a Secret value or an API key: a canary through the API, the whole export searched', async () => {
      const ns = (await adminCreate(t, '/namespaces', { name: uniqueName('canary') })).id;
      const canaries = [`canary-export-${randomBytes(16).toString('hex')}`, `canary-export-${randomBytes(16).toString('hex')}`];
      const secret = await adminCreate(t, `/namespaces/${ns}/secrets`, { name: uniqueName('s'), value: canaries[0] });
      expect((await t.request({ method: 'PATCH', url: `/namespaces/${ns}/secrets/${secret.id}`, body: { value: canaries[1] } })).status).toBe(200);
      const cfg = await adminCreate(t, `/namespaces/${ns}/configurations`, { name: uniqueName('c'), values: {}, secretBindings: { TOKEN: { secretId: secret.id } } });
      await adminCreate(t, `/namespaces/${ns}/agents`, {
        name: uniqueName('a'),
        configurationId: cfg.id,
        harness: 'codex',
        harnessAuth: { method: 'codex_pat', secretId: secret.id },
      });
      const p = await newPrincipal(t);
      const last = (await listed('limit=1'))[0]!;
      await exportUntil(undefined, last.id);
      let text = '';
      let cursor: string | undefined;
      for (;;) {
        const page = await exportPage(cursor, 5);
        text += `${page.res.raw}\n${JSON.stringify(page.res.headers)}\n`;
        if (page.events.length === 0) break;
        cursor = page.next;
      }
      expect(text).toContain(secret.id);
      expect(text).toContain('secrets.update');
      for (const canary of [...canaries, p.key, t.adminKey]) expect(text).not.toContain(canary);
    });
  });

  describe('a transaction that commits late is exported, exactly once (two real connections)', () => {
    it('holds back what an open transaction could still precede, then yields every event once, the late one included', async () => {
      const cursor = await caughtUp();
      const a = auditEvent(null, { action: 'test.late_commit', details: { tx: 'A' } });
      const b = auditEvent(null, { action: 'test.late_commit', details: { tx: 'B' } });
      let inserted!: () => void;
      let commit!: () => void;
      const aInserted = new Promise<void>((resolve) => {
        inserted = resolve;
      });
      const aMayCommit = new Promise<void>((resolve) => {
        commit = resolve;
      });
      // A: inserts its event, then stays open on its own pool connection.
      const txA = t.database.transaction(async (tx) => {
        await auditRepository(tx).append(a);
        inserted();
        await aMayCommit;
      });
      try {
        await aInserted;
        // B, on another connection: inserts after A (a higher seq and transaction id) and commits.
        await t.database.transaction((tx) => auditRepository(tx).append(b));
        const seqs = await t.database.query<{ id: string; seq: string }>('SELECT id, seq::text AS seq FROM audit_events WHERE id = ANY($1) ORDER BY seq', [[a.id, b.id]]);
        // Only B is committed and visible, yet A took the lower seq: a seq cursor handed out now
        // would move past A's seq, and A, committing later, would never be exported.
        expect(seqs.rows.map((r) => r.id)).toEqual([b.id]);
        const { rows } = await t.database.query<{ n: number }>("SELECT count(*)::int AS n FROM audit_events WHERE action = 'test.late_commit'");
        expect(rows[0]!.n).toBe(1);

        // The export, meanwhile, hands out neither: B's transaction id is above A's, which is open.
        for (let i = 0; i < 3; i++) {
          const page = await exportPage(cursor);
          expect(page.events).toEqual([]);
          expect(page.next).toBe(cursor);
        }
      } finally {
        commit();
        await txA;
      }
      // A committed: from the same cursor, A then B (the order of their transactions), each once.
      const after = await exportUntil(cursor, b.id);
      expect(after.events.filter((e) => e.action === 'test.late_commit').map((e) => (e.details as { tx?: string }).tx)).toEqual(['A', 'B']);
      expect(after.events.map((e) => e.id)).toEqual([a.id, b.id]);
      expect((await exportAll(after.cursor)).events).toEqual([]);
      expect(after.events[0]).toEqual({ ...a, occurredAt: expect.any(String) });
    });
  });
});
