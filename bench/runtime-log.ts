import type { RuntimeLogEvent } from '../test-support/local-gateway.ts';

/** The runtime's `startup.step` timings (apps/runtime/src/progress.ts), summed per step name. */
export function stepTimes(events: readonly RuntimeLogEvent[]): Record<string, number> {
  const steps: Record<string, number> = {};
  for (const e of events) if (e.event === 'startup.step' && typeof e.step === 'string') steps[e.step] = (steps[e.step] ?? 0) + (typeof e.ms === 'number' ? e.ms : 0);
  return steps;
}
