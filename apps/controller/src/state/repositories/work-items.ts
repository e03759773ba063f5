import type { WorkItemRepository } from '../../core/ports/work-items.ts';
import type { Queryable } from '../database.ts';
import { enqueue } from '../work-queue/enqueue.ts';
import { getWorkItem } from '../work-queue/get.ts';

export function workItemRepository(q: Queryable): WorkItemRepository {
  return { enqueue: (req) => enqueue(q, req), get: (key) => getWorkItem(q, key) };
}
