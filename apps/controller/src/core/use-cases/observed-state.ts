import type { ObservedState } from '../ports/metrics.ts';
import type { StateStore } from '../ports/state.ts';

/** The gauges read from the state at each scrape (docs/observability.md): the open work and the Agents by phase. */
export function readObservedState(state: StateStore): Promise<ObservedState> {
  return state.read(async (uow) => ({ workQueue: await uow.work.queueGauges(), agents: await uow.agents.countByPhase() }));
}
