import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One line of the runtime's own JSON log (apps/runtime/src/log.ts): the fields the benches read. */
export interface RuntimeLogEvent {
  time: string;
  event: string;
  step?: string;
  ms?: number;
}

/** A local revision's runtime log as events, read before the bench's data directory goes away (lines that are not JSON skipped). */
export function runtimeLogEvents(dataDir: string, agentId: string, revisionId: string): RuntimeLogEvent[] {
  const log = readFileSync(join(dataDir, 'compute', 'local', 'agents', agentId, 'revisions', revisionId, 'logs', 'runtime.log'), 'utf8');
  return log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => {
      try {
        return JSON.parse(line) as RuntimeLogEvent;
      } catch {
        return null;
      }
    })
    .filter((e): e is RuntimeLogEvent => e !== null && typeof e.event === 'string');
}

/** The runtime's `startup.step` timings, summed per step name. */
export function stepTimes(events: readonly RuntimeLogEvent[]): Record<string, number> {
  const steps: Record<string, number> = {};
  for (const e of events) if (e.event === 'startup.step' && e.step) steps[e.step] = (steps[e.step] ?? 0) + (e.ms ?? 0);
  return steps;
}
