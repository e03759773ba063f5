import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploy, newDeployTarget } from '../../../../test-support/deploy-helpers.ts';
import { startTestController, type TestController } from '../../../../test-support/test-controller.ts';

describe('revision numbering under concurrent deploys', () => {
  let t: TestController;
  beforeAll(async () => {
    t = await startTestController();
  });
  afterAll(async () => t?.close());

  it('[A-1] 50 concurrent deploys of one Agent are numbered exactly 1..50, each with its work item and audit event', async () => {
    const target = await newDeployTarget(t);
    // On PostgreSQL these run on a pool of connections and really race; PGlite serializes them.
    const responses = await Promise.all(Array.from({ length: 50 }, () => deploy(t, target)));
    for (const res of responses) expect(res.status, res.raw).toBe(202);
    const numbers = responses.map((r) => r.body.data.revision as number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(new Set(responses.map((r) => r.body.data.id)).size).toBe(50);

    const { rows } = await t.database.query<{ n: number; distinct_numbers: number; max: number }>(
      'SELECT count(*)::int AS n, count(DISTINCT revision_number)::int AS distinct_numbers, max(revision_number)::int AS max FROM agent_revisions WHERE agent_id = $1',
      [target.agentId],
    );
    expect(rows[0]).toEqual({ n: 50, distinct_numbers: 50, max: 50 });
    const work = await t.database.query<{ n: number }>(`SELECT count(DISTINCT revision_id)::int AS n FROM work_items WHERE agent_id = $1 AND kind = 'reconcile_revision'`, [
      target.agentId,
    ]);
    expect(work.rows[0]!.n).toBe(50);
    const audits = await t.database.query<{ revision_id: string }>(
      `SELECT details->>'revisionId' AS revision_id FROM audit_events WHERE action = 'agents.deploy' AND resource_id = $1`,
      [target.agentId],
    );
    expect(audits.rows.map((r) => r.revision_id).sort()).toEqual(responses.map((r) => r.body.data.id).sort());

    // The list shows them newest first, all 50.
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await t.request({ method: 'GET', url: `${target.url}/revisions?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}` });
      expect(page.status, page.raw).toBe(200);
      seen.push(...page.body.data.items.map((r: { revision: number }) => r.revision));
      cursor = page.body.data.nextCursor;
    } while (cursor);
    expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => 50 - i));
  });

  it('[A-1] numbering is per Agent: interleaved concurrent deploys of two Agents each count from 1', async () => {
    const a = await newDeployTarget(t);
    const b = await newDeployTarget(t);
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => deploy(t, i % 2 ? a : b).then((res) => ({ res, agent: i % 2 ? a.agentId : b.agentId }))));
    for (const agentId of [a.agentId, b.agentId]) {
      const mine = responses.filter((r) => r.agent === agentId);
      for (const { res } of mine) expect(res.status, res.raw).toBe(202);
      expect(mine.map(({ res }) => res.body.data.revision).sort((x: number, y: number) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    }
  });
});
