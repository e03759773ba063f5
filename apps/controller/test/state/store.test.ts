import { describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.ts';
import type { Database } from '../../src/state/database.ts';
import { LATEST_SCHEMA_VERSION, migrate } from '../../src/state/migrate.ts';
import { createStateStore } from '../../src/state/state-store.ts';
import { createTestDatabase } from '../../../../test-support/test-database.ts';
import { ISO, auditEvent, expectOccError, useStateStore } from './fixtures.ts';

const f = useStateStore();

describe('InstallationRepository', () => {
  it('creates the singleton once', async () => {
    expect(await f.store.read((uow) => uow.installation.get())).toBeNull();
    const id = `ins_${crypto.randomUUID()}`;
    expect(await f.store.transact((uow) => uow.installation.create({ id, name: 'OCC' }))).toBe(true);
    expect(await f.store.transact((uow) => uow.installation.create({ id: `ins_${crypto.randomUUID()}`, name: 'other' }))).toBe(false);
    expect(await f.store.read((uow) => uow.installation.get())).toEqual({ id, name: 'OCC', createdAt: expect.stringMatching(ISO) });
  });
});

describe('AuditRepository', () => {
  const event = auditEvent;

  it('appends events and scans newest first with seq positions', async () => {
    const writes = [
      event({
        actorId: newId('principal'),
        action: 'secrets.create',
        namespaceId: newId('namespace'),
        resource: { kind: 'secret', id: newId('secret') },
        requestId: 'req-1',
        details: { name: 'x', nested: [1, { a: null }] },
      }),
      event({ outcome: 'denied', resource: { kind: 'installation', id: null } }),
      event({ outcome: 'failure' }),
    ];
    await f.store.transact(async (uow) => {
      for (const w of writes) await uow.audit.append(w);
    });
    const page = await f.store.read((uow) => uow.audit.scan({ limit: 3 }));
    expect(page.map((e) => e.id)).toEqual(writes.map((w) => w.id).reverse());
    const [last, middle, first] = page;
    expect(first).toEqual({ ...writes[0], occurredAt: expect.stringMatching(ISO), position: expect.stringMatching(/^\d+$/) });
    expect(middle!.resource).toEqual({ kind: 'installation', id: null });
    expect(last!.resource).toBeNull();
    expect(Number(middle!.position)).toBeLessThan(Number(last!.position));

    const next = await f.store.read((uow) => uow.audit.scan({ after: last!.position, limit: 2 }));
    expect(next.map((e) => e.id)).toEqual([middle!.id, first!.id]);
    expect(await f.store.read((uow) => uow.audit.scan({ after: first!.position, limit: 10 }))).toEqual([]);
  });

  it('refuses a position it never handed out', async () => {
    await expectOccError(
      f.store.read((uow) => uow.audit.scan({ after: '1 OR true', limit: 1 })),
      'INVALID_REQUEST',
    );
  });
});

describe('StateStore', () => {
  it('reports the applied and expected schema versions', async () => {
    expect(await f.store.schemaStatus()).toEqual({ applied: LATEST_SCHEMA_VERSION, expected: LATEST_SCHEMA_VERSION });
  });

  it('schemaStatus throws when the database is unreachable', async () => {
    const down: Database = {
      kind: 'postgres',
      query: () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
      exec: () => Promise.reject(new Error('unreachable')),
      transaction: () => Promise.reject(new Error('unreachable')),
      close: async () => {},
    };
    await expect(createStateStore(down).schemaStatus()).rejects.toThrow(/ECONNREFUSED/);
  });

  it('transact rolls back every write when fn throws; read sees committed state only', async () => {
    const id = newId('namespace');
    await expect(
      f.store.transact(async (uow) => {
        await uow.namespaces.insert({ id, name: `rollback-${id}` });
        expect(await uow.namespaces.get(id)).not.toBeNull();
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await f.store.read((uow) => uow.namespaces.get(id))).toBeNull();
  });
});

describe('migrations', () => {
  it('are idempotent: migrating twice changes nothing', async () => {
    const before = await f.db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(await migrate(f.db)).toBe(LATEST_SCHEMA_VERSION);
    expect(await migrate(f.db)).toBe(LATEST_SCHEMA_VERSION);
    const after = await f.db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(after.rows).toEqual(before.rows);
    expect(after.rows.at(-1)?.version).toBe(LATEST_SCHEMA_VERSION);
  });

  it('refuse a database whose schema is newer than this build', async () => {
    await f.db.query("INSERT INTO schema_migrations (version, name) VALUES (9999, '9999_future.sql')");
    try {
      await expect(migrate(f.db)).rejects.toThrow(/newer than this build supports/);
      expect(await f.store.schemaStatus()).toEqual({ applied: 9999, expected: LATEST_SCHEMA_VERSION });
    } finally {
      await f.db.query('DELETE FROM schema_migrations WHERE version = 9999');
    }
  });
});

describe('createTestDatabase', () => {
  it('fails loudly, never skips, when PostgreSQL is unreachable', async () => {
    const saved = { db: process.env.OCC_TEST_DB, url: process.env.OCC_TEST_DATABASE_URL };
    process.env.OCC_TEST_DB = 'postgres';
    process.env.OCC_TEST_DATABASE_URL = 'postgres://postgres:postgres@127.0.0.1:1/postgres';
    try {
      await expect(createTestDatabase()).rejects.toThrow(/PostgreSQL is unreachable/);
    } finally {
      process.env.OCC_TEST_DB = saved.db;
      if (saved.url === undefined) delete process.env.OCC_TEST_DATABASE_URL;
      else process.env.OCC_TEST_DATABASE_URL = saved.url;
    }
  });
});
