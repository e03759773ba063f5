import type { RuntimeProgress } from './compute-driver.ts';
import type { WorkQueueGauge } from './metrics.ts';
import type { WorkItem, WorkQueueWriter } from './work-queue.ts';

/** The work queue as seen from inside a unit of work: enqueue with the change that causes it. */
export interface WorkItemRepository extends WorkQueueWriter {
  get(key: string): Promise<WorkItem | null>;
  /** Stores what a runtime startup of the item reported so far (its row only grows; nothing for a gone item). */
  recordProgress(key: string, progress: RuntimeProgress): Promise<void>;
  /** Every startup's progress stored for the item, first recorded first. */
  progress(key: string): Promise<RuntimeProgress[]>;
  /** Whether the lane holds queued or claimed work other than the item `exceptKey` (work under way). */
  otherOpenWork(lane: string, exceptKey: string): Promise<boolean>;
  /** Removes an Agent's work items; false (and nothing removed) while one is claimed. */
  deleteForAgent(agentId: string): Promise<boolean>;
  /** The open (queued and claimed) items of each kind that has any, at one reading of the database clock (the metrics' gauges). */
  queueGauges(): Promise<WorkQueueGauge[]>;
}
