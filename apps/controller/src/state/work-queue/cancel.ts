import type { WorkOutcomeCode } from '@occ/contracts';
import type { Claim } from '../../core/ports/work-queue.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { LIVE_CLAIM, RELEASE, fence, matched } from './rows.ts';

/** Terminal, not done, under the live claim: the work was overtaken (a newer revision, a stop). */
export async function cancel(q: Queryable, claim: Claim, code: WorkOutcomeCode<'cancelled'>): Promise<void> {
  const { rows } = await runner(q)(
    `UPDATE work_items SET state = 'cancelled', reason_code = $3, error_message = NULL, result = NULL, ${RELEASE}
     WHERE ${LIVE_CLAIM} RETURNING 1`,
    [...fence(claim), code],
  );
  matched(rows, claim);
}
