import type { WorkItem } from '../../core/ports/work-queue.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { WORK_COLUMNS, toWorkItem, type WorkRow } from './rows.ts';

export async function getWorkItem(q: Queryable, key: string): Promise<WorkItem | null> {
  const { rows } = await runner(q)<WorkRow>(`SELECT ${WORK_COLUMNS} FROM work_items WHERE idempotency_key = $1`, [key]);
  return rows[0] ? toWorkItem(rows[0]) : null;
}
