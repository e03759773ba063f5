import { randomUUID } from 'node:crypto';
import type { RuntimeProgressStep } from '@occ/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/state/database.ts';
import { readProgress, recordProgress } from '../../src/state/work-queue/progress.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test-support/test-database.ts';

// The runtime's typed startup progress as the worker stores it (work_item_progress): what the
// deployment event stream replays.
let test: TestDatabase;
let db: Database;
beforeAll(async () => {
  test = await createTestDatabase();
  db = test.db;
});
afterAll(() => test?.cleanup());

async function newItem(): Promise<string> {
  const key = `agent_revision:rev_${randomUUID()}:reconcile`;
  await db.query(
    `INSERT INTO work_items (idempotency_key, id, kind, lane, namespace_id, agent_id, actor_id, max_attempts, deadline_at)
     VALUES ($1, $2, 'reconcile_revision', $1, 'n', 'a', 'p', 5, now() + interval '1 hour')`,
    [key, `wrk_${randomUUID()}`],
  );
  return key;
}

const at = (second: number) => `2026-12-05T10:00:${String(second).padStart(2, '0')}.000Z`;
const steps = (n: number): RuntimeProgressStep[] => Array.from({ length: n }, (_, i) => ({ at: at(i), step: 'plan' }));
const startup = (n: number) => `startup-${String(n).padStart(12, '0')}`;

describe('work item progress', () => {
  it("keeps each startup's steps, first recorded first; a startup's row only grows", async () => {
    const key = await newItem();
    await recordProgress(db, key, { startupId: startup(1), steps: steps(2) });
    await recordProgress(db, key, { startupId: startup(1), steps: steps(4) });
    // A read that raced an older one (fewer steps) never shortens what was stored.
    await recordProgress(db, key, { startupId: startup(1), steps: steps(3) });
    await recordProgress(db, key, { startupId: startup(2), steps: [{ at: at(9), code: 'PLUGIN_VERIFICATION_FAILED' }] });
    // Growing after a later startup was recorded keeps its place.
    await recordProgress(db, key, { startupId: startup(1), steps: steps(5) });
    expect(await readProgress(db, key)).toEqual([
      { startupId: startup(1), steps: steps(5) },
      { startupId: startup(2), steps: [{ at: at(9), code: 'PLUGIN_VERIFICATION_FAILED' }] },
    ]);
  });

  it('writes nothing for an item that is gone, and goes with its item', async () => {
    await recordProgress(db, 'agent_revision:gone:reconcile', { startupId: startup(1), steps: steps(1) });
    expect(await readProgress(db, 'agent_revision:gone:reconcile')).toEqual([]);
    const key = await newItem();
    await recordProgress(db, key, { startupId: startup(1), steps: steps(1) });
    await db.query('DELETE FROM work_items WHERE idempotency_key = $1', [key]);
    expect(await readProgress(db, key)).toEqual([]);
  });

  it('keeps at most 64 startups of one item (a runtime restarting without end does not grow the table without end)', async () => {
    const key = await newItem();
    for (let n = 1; n <= 66; n += 1) await recordProgress(db, key, { startupId: startup(n), steps: steps(1) });
    const stored = await readProgress(db, key);
    expect(stored).toHaveLength(64);
    // The known ones still grow.
    await recordProgress(db, key, { startupId: startup(64), steps: steps(2) });
    expect((await readProgress(db, key)).find((row) => row.startupId === startup(64))!.steps).toHaveLength(2);
  });
});
