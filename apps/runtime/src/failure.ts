import type { StartupFailureCode, StartupFailureDetail } from '@occ/contracts';

/** The fixed codes live in @occ/contracts (startup-failure-codes.ts): compute and the worker's reason-code registry read the same list. */
export type { StartupFailureCode } from '@occ/contracts';

/**
 * An ordinary startup failure: the runtime stays unready, the gateway unstarted. The message is
 * a fixed sentence written here (at most 256 characters), never tool output, paths or secrets.
 */
export class StartupFailure extends Error {
  constructor(
    readonly code: StartupFailureCode,
    message: string,
    /** The selection that failed the startup and why, in closed terms (published with the code). */
    readonly detail?: StartupFailureDetail,
  ) {
    super(message.length > 256 ? `${message.slice(0, 255)}…` : message);
    this.name = 'StartupFailure';
  }
}

/** Anything thrown that is not a StartupFailure becomes the generic code (its text stays in the log only). */
export function asStartupFailure(error: unknown): StartupFailure {
  if (error instanceof StartupFailure) return error;
  return new StartupFailure('RUNTIME_STARTUP_FAILED', 'The runtime failed unexpectedly while preparing the revision.');
}
