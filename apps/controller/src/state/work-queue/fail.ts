import type { WorkOutcomeCode } from '@occ/contracts';
import type { Claim } from '../../core/ports/work-queue.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { LIVE_CLAIM, RELEASE, fence, matched } from './rows.ts';

/** Permanent failure under the live claim; the attempt stays spent. */
export async function fail(q: Queryable, claim: Claim, code: WorkOutcomeCode<'failed'>, message: string): Promise<void> {
  const { rows } = await runner(q)(
    `UPDATE work_items SET state = 'failed', reason_code = $3, error_message = $4, ${RELEASE}
     WHERE ${LIVE_CLAIM} RETURNING 1`,
    [...fence(claim), code, message],
  );
  matched(rows, claim);
}
