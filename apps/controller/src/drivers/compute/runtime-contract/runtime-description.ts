import type { GatewayReply, RuntimeDescription } from '../../../core/ports/compute-driver.ts';
import type { Observation } from './startup-status.ts';

/** A revision of which nothing runs (or nothing is known): the live view's empty answer (a fresh object each time). */
export const noRuntime = (): RuntimeDescription => ({
  running: false,
  phase: null,
  startupId: null,
  restarts: 0,
  ready: false,
  deliveredSecrets: [],
  lastFailureCode: null,
  loaded: null,
});

const PHASES: Record<Observation['kind'], RuntimeDescription['phase']> = { starting: 'preparing', untrusted: null, failed: 'failed', ready: 'ready' };

/** The phase the live view shows for a look at the runtime: an untrusted status shows none; a candidate holding for its go shows `prepared`. */
export const phaseOf = (observation: Observation | null): RuntimeDescription['phase'] =>
  observation?.kind === 'starting' && observation.prepared ? 'prepared' : observation ? PHASES[observation.kind] : null;

/**
 * The live view of one runtime, judged the same way on every target from what the target saw:
 * its status (`observation`, null when it was not read or not trusted) and whether its gateway
 * answered (`serving`). Ready means what a client would find now: a trusted ready status AND a
 * gateway that serves. `facts` are what only the target knows.
 */
export function describeObserved(
  running: boolean,
  observation: Observation | null,
  serving: boolean,
  facts: Pick<RuntimeDescription, 'startupId' | 'restarts' | 'deliveredSecrets' | 'lastFailureCode'>,
): RuntimeDescription {
  const ready = observation?.kind === 'ready' ? observation : null;
  return { running, phase: phaseOf(observation), ...facts, ready: ready !== null && serving, loaded: ready?.loaded ?? null };
}

/** Why a running runtime's gateway cannot take a message yet, in words: a failed start names its code; anything else is still starting. */
export function notServingYet(observation: Exclude<Observation, { kind: 'ready' }> | null): Extract<GatewayReply, { kind: 'not-serving' }> {
  return { kind: 'not-serving', state: observation?.kind === 'failed' ? `its start failed (${observation.code})` : 'it is starting' };
}
