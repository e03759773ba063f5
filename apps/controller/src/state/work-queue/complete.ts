import type { WorkOutcomeCode } from '@occ/contracts';
import type { Claim } from '../../core/ports/work-queue.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { jsonb } from '../repositories/rows.ts';
import { LIVE_CLAIM, RELEASE, fence, matched } from './rows.ts';

/** Terminal success under the live claim. */
export async function complete(q: Queryable, claim: Claim, code: WorkOutcomeCode<'succeeded'>, result: unknown): Promise<void> {
  const { rows } = await runner(q)(
    `UPDATE work_items SET state = 'succeeded', reason_code = $3, error_message = NULL, result = $4::jsonb, ${RELEASE}
     WHERE ${LIVE_CLAIM} RETURNING 1`,
    [...fence(claim), code, jsonb(result)],
  );
  matched(rows, claim);
}
