import type { WorkItem, WorkQueueWriter } from './work-queue.ts';

/** The work queue as seen from inside a unit of work: enqueue with the change that causes it. */
export interface WorkItemRepository extends WorkQueueWriter {
  get(key: string): Promise<WorkItem | null>;
  /** Removes an Agent's work items; false (and nothing removed) while one is claimed. */
  deleteForAgent(agentId: string): Promise<boolean>;
}
