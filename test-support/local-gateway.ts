// A revision's gateway on the local ComputeDriver, as a test or the bench talks to it directly: its
// port from the runtime's own `gateway.started` log event, its token derived as the driver derives
// it. Shared by the e2e tests (test-support/e2e-local.ts) and bench/codex-turn.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { revisionPaths } from '../apps/controller/src/drivers/compute/local/layout.ts';
import { deriveToken, loadDriverKey } from '../apps/controller/src/drivers/compute/runtime-contract/driver-key.ts';
import type { GatewayAddress } from './scripted-agent-turn.ts';

export type RuntimeLogEvent = { event: string; [field: string]: unknown };

/** The local ComputeDriver's root under an OCC data directory. */
export const localComputeRoot = (dataDir: string) => join(dataDir, 'compute', 'local');

/** The runtime's own JSON log events in a revision's log file (the gateway's and other lines left out). */
export function runtimeLogEvents(dataDir: string, agentId: string, revisionId: string): RuntimeLogEvent[] {
  const log = readFileSync(revisionPaths(localComputeRoot(dataDir), agentId, revisionId).logFile, 'utf8');
  return log
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"source":"occ-runtime"'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as RuntimeLogEvent];
      } catch {
        return [];
      }
    });
}

/** When the runtime logged `name` first, in milliseconds after `since` (epoch ms; 0: the time itself); NaN when it did not. */
export function firstEventAt(events: readonly RuntimeLogEvent[], name: string, since = 0): number {
  const seen = events.find((e) => e.event === name);
  return typeof seen?.time === 'string' ? Date.parse(seen.time) - since : Number.NaN;
}

/** Where the revision's gateway listens (its last start) and the token it takes. */
export function localGateway(dataDir: string, agentId: string, revisionId: string): GatewayAddress {
  const port = runtimeLogEvents(dataDir, agentId, revisionId)
    .filter((e) => e.event === 'gateway.started')
    .at(-1)?.port;
  if (typeof port !== 'number') throw new Error('the runtime logged no gateway port');
  return { port, token: deriveToken(loadDriverKey(localComputeRoot(dataDir)), 'gateway', revisionId) };
}
