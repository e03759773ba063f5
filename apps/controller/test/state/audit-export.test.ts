import { describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.ts';
import type { AuditFilter, ExportPosition } from '../../src/core/ports/audit-repository.ts';
import { loadMigrations } from '../../src/state/migrate.ts';
import { auditRepository } from '../../src/state/repositories/audit.ts';
import { auditEvent, useStateStore } from './fixtures.ts';

/**
 * The audit log's filters and its export (migration 0012), on both engines. On PGlite (one
 * connection) the export's watermark is every committed transaction; the late-commit case with
 * two connections is test/http/audit-export.test.ts, on PostgreSQL.
 */
const f = useStateStore();

const event = auditEvent;

const BEGINNING: ExportPosition = { xid: '0', seq: '0' };
const exportAfter = (after: ExportPosition, limit = 1000) => f.store.read((uow) => uow.audit.exportAfter(after, limit));

/** Every event exported after `from`, page by page, and the position after the last. */
async function exportAll(from: ExportPosition, limit: number): Promise<{ ids: string[]; at: ExportPosition }> {
  const ids: string[] = [];
  let at = from;
  for (;;) {
    const { events } = await exportAfter(at, limit);
    ids.push(...events.map((e) => e.id));
    if (events.length === 0) return { ids, at };
    at = events.at(-1)!.at;
  }
}

/**
 * The export after `from` once it reaches the event `lastId`. On PostgreSQL the watermark is the
 * whole cluster's oldest open transaction: another database's transaction (a parallel test file)
 * may hold it back for a moment, never past its end.
 */
async function exportUntil(from: ExportPosition, limit: number, lastId: string): Promise<{ ids: string[]; at: ExportPosition }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const all = await exportAll(from, limit);
    if (all.ids.includes(lastId) || Date.now() > deadline) return all;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A position after every event committed so far: a marker event's, once exported. */
async function settledPosition(): Promise<ExportPosition> {
  const marker = event({ action: 'test.marker' });
  await f.store.transact((uow) => uow.audit.append(marker));
  return (await exportUntil(BEGINNING, 1000, marker.id)).at;
}

const position = (at: ExportPosition) => [BigInt(at.xid), BigInt(at.seq)] as const;
const before = (a: ExportPosition, b: ExportPosition) => {
  const [ax, as] = position(a);
  const [bx, bs] = position(b);
  return ax < bx || (ax === bx && as < bs);
};

describe('the audit export', () => {
  it('hands out committed events oldest first, page by page, each exactly once; positions only grow', async () => {
    const start = await settledPosition();
    const batches = [[event(), event()], [event()], [event(), event(), event()]];
    for (const batch of batches)
      await f.store.transact(async (uow) => {
        for (const e of batch) await uow.audit.append(e);
      });
    const written = batches.flat().map((e) => e.id);

    await exportUntil(start, 1000, written.at(-1)!);
    const first = await exportAfter(start, 4);
    expect(first.events.map((e) => e.id)).toEqual(written.slice(0, 4));
    for (let i = 1; i < first.events.length; i++) expect(before(first.events[i - 1]!.at, first.events[i]!.at)).toBe(true);
    // One transaction's events share its id and keep their insertion order.
    expect(first.events[0]!.at.xid).toBe(first.events[1]!.at.xid);
    expect(first.events[1]!.at.xid).not.toBe(first.events[2]!.at.xid);
    const rest = await exportAll(first.events.at(-1)!.at, 4);
    expect(rest.ids).toEqual(written.slice(4));
    expect((await exportAfter(rest.at)).events).toEqual([]);
    // The event as the list shows it, nothing more.
    expect(Object.keys(first.events[0]!).sort()).toEqual(['action', 'actorId', 'at', 'details', 'id', 'namespaceId', 'occurredAt', 'outcome', 'requestId', 'resource']);
  });

  it('orders by transaction id as a number (9 before 10), then seq; a position is exclusive', async () => {
    // Transaction ids far below any real one, written straight to the table: the later row has the lower id.
    const ten = event({ action: 'test.order' });
    const nine = event({ action: 'test.order' });
    await f.db.query("INSERT INTO audit_events (id, action, outcome, xid) VALUES ($1, 'test.order', 'success', '10'), ($2, 'test.order', 'success', '9')", [ten.id, nine.id]);
    const { events } = await exportAfter(BEGINNING, 1000);
    const ours = events.filter((e) => e.action === 'test.order');
    expect(ours.map((e) => [e.id, e.at.xid])).toEqual([
      [nine.id, '9'],
      [ten.id, '10'],
    ]);
    expect((await exportAfter(ours[0]!.at, 1)).events.map((e) => e.id)).toEqual([ten.id]);
  });

  it('the watermark: a transaction that is still open exports nothing, not even to itself; once committed, all of it', async () => {
    const at = await settledPosition();
    const mine = [event(), event()];
    await f.store.transact(async (uow) => {
      for (const e of mine) await uow.audit.append(e);
      // Its own transaction id is at or above its snapshot's xmin.
      expect((await uow.audit.exportAfter(at, 1000)).events).toEqual([]);
    });
    expect((await exportUntil(at, 1000, mine[1]!.id)).ids).toEqual(mine.map((e) => e.id));
  });

  it('a rolled-back transaction leaves nothing to export, and nothing after it is held back', async () => {
    const at = await settledPosition();
    const lost = event();
    await expect(
      f.store.transact(async (uow) => {
        await uow.audit.append(lost);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const kept = event();
    await f.store.transact((uow) => uow.audit.append(kept));
    expect((await exportUntil(at, 1000, kept.id)).ids).toEqual([kept.id]);
  });

  it("answers the snapshot's next transaction id, above every exported position", async () => {
    const last = event();
    await f.store.transact((uow) => uow.audit.append(last));
    await exportUntil(BEGINNING, 1000, last.id);
    const { events, xmax } = await exportAfter(BEGINNING, 1000);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect(BigInt(e.at.xid)).toBeLessThan(BigInt(xmax));
  });
});

describe('the audit list filters', () => {
  const actor = newId('principal');
  const nsA = newId('namespace');
  const nsB = newId('namespace');
  const agent = newId('agent');
  const writes = [
    event({ actorId: actor, action: 'agents.create', namespaceId: nsA, resource: { kind: 'agent', id: agent } }),
    event({ actorId: actor, action: 'agents.update', namespaceId: nsA, resource: { kind: 'agent', id: agent } }),
    event({ action: 'api_keys.create', resource: { kind: 'api_key', id: newId('api_key') } }),
    // `_` in a prefix is a character, not LIKE's wildcard.
    event({ action: 'apixkeys.create' }),
    event({ actorId: actor, action: 'secrets.create', namespaceId: nsB, resource: { kind: 'secret', id: newId('secret') } }),
  ];
  const ids = (filter: AuditFilter) => f.store.read(async (uow) => (await uow.audit.scan({ limit: 200 }, filter)).map((e) => e.id).reverse());
  const idsOf = (...indexes: number[]) => indexes.map((i) => writes[i]!.id);

  it('each filter alone, and several combined with AND; newest first, paged by position', async () => {
    await f.store.transact(async (uow) => {
      for (const w of writes) await uow.audit.append(w);
    });
    expect(await ids({ actorId: actor })).toEqual(idsOf(0, 1, 4));
    expect(await ids({ action: 'agents.update' })).toEqual(idsOf(1));
    expect(await ids({ actionPrefix: 'agents.' })).toEqual(idsOf(0, 1));
    expect(await ids({ actionPrefix: 'api_keys.' })).toEqual(idsOf(2));
    expect(await ids({ namespaceId: nsB })).toEqual(idsOf(4));
    expect(await ids({ resourceKind: 'agent', resourceId: agent })).toEqual(idsOf(0, 1));
    expect(await ids({ resourceId: agent, action: 'agents.create' })).toEqual(idsOf(0));
    expect(await ids({ actorId: actor, namespaceId: nsA, actionPrefix: 'secrets.' })).toEqual([]);

    const page = await f.store.read((uow) => uow.audit.scan({ limit: 1 }, { actorId: actor }));
    expect(page.map((e) => e.id)).toEqual(idsOf(4));
    const next = await f.store.read((uow) => uow.audit.scan({ after: page[0]!.position, limit: 5 }, { actorId: actor }));
    expect(next.map((e) => e.id)).toEqual(idsOf(1, 0));
  });

  it('since is inclusive and until exclusive, at microseconds', async () => {
    const utc = (expression: string) => `to_char((${expression}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
    const { rows } = await f.db.query<{ at: string; later: string }>(
      `SELECT ${utc('occurred_at')} AS at, ${utc("occurred_at + interval '1 microsecond'")} AS later FROM audit_events WHERE id = $1`,
      [writes[0]!.id],
    );
    const { at, later } = rows[0]!;
    // One transaction wrote them all: they share its start time.
    expect(await ids({ actorId: actor, since: at })).toEqual(idsOf(0, 1, 4));
    expect(await ids({ actorId: actor, until: at })).toEqual([]);
    expect(await ids({ actorId: actor, since: at, until: later })).toEqual(idsOf(0, 1, 4));
    expect(await ids({ actorId: actor, since: later })).toEqual([]);
  });
});

describe('migration 0012 on an audit log that already has events', () => {
  it('gives them one transaction id, so they export in their seq order, before every later event', async () => {
    const migration = loadMigrations().find((m) => m.version === 12)!;
    expect(migration.name).toBe('0012_audit_export.sql');
    // The table as it was before 0012, with events from several transactions.
    await f.db.exec(
      'DROP INDEX audit_events_export, audit_events_actor, audit_events_action, audit_events_namespace, audit_events_resource, audit_events_occurred_at; ALTER TABLE audit_events DROP COLUMN xid',
    );
    const older = [event(), event(), event()];
    for (const e of older) await f.store.transact((uow) => uow.audit.append(e));
    await f.db.transaction((tx) => tx.exec(migration.sql));
    const later = event();
    await f.db.transaction((tx) => auditRepository(tx).append(later));

    const { ids } = await exportUntil(BEGINNING, 2, later.id);
    const { rows } = await f.db.query<{ id: string }>('SELECT id FROM audit_events ORDER BY seq');
    expect(ids).toEqual(rows.map((r) => r.id));
    expect(ids.slice(-4)).toEqual([...older, later].map((e) => e.id));
    const { rows: xids } = await f.db.query<{ n: number }>('SELECT count(DISTINCT xid)::int AS n FROM audit_events WHERE id <> $1', [later.id]);
    expect(xids[0]!.n).toBe(1);
  });
});
