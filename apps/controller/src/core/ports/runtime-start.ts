/**
 * What a ComputeDriver asks the control plane each time it starts a revision's runtime — the
 * first start, a supervised restart, or bringing an Agent back after OCC restarted. The driver
 * never decides on its own that a runtime may run or with which Secrets.
 */
export interface RuntimeStartAuthority {
  /**
   * The revisions the Agents' active-revision pointers name now, on the ComputeDriver `computeDriverId`
   * (the database is the truth about what should run, never a file the driver left behind).
   */
  activeRevisions(computeDriverId: string): Promise<RevisionRef[]>;
  /**
   * Re-authorizes one start of `revision` and runs `use` with the environment its Configuration's
   * Secret bindings deliver (variable name → value). The values exist only for the duration of
   * `use`: start the process inside it and keep no copy. Throws RuntimeStartDenied.
   */
  withStartEnvironment<T>(revision: RevisionRef, use: (environment: Readonly<Record<string, string>>) => Promise<T>): Promise<T>;
}

export interface RevisionRef {
  namespaceId: string;
  agentId: string;
  revisionId: string;
}

/** Why a start was refused: closed codes, fixed messages that never name a value. */
export const RUNTIME_START_DENIALS = {
  /** The Agent, or this revision of it, no longer exists. */
  REVISION_UNAVAILABLE: 'The revision no longer exists.',
  /** The Agent's own principal no longer holds secret:operate on a bound Secret. */
  SECRET_ACCESS_REVOKED: "The Agent's principal no longer holds secret:operate on a Secret its Configuration binds.",
  /** A bound Secret was deleted (or moved out of the Namespace) since the revision was admitted. */
  SECRET_UNAVAILABLE: 'A Secret the Configuration binds no longer exists.',
} as const;
export type RuntimeStartDenialCode = keyof typeof RUNTIME_START_DENIALS;

export class RuntimeStartDenied extends Error {
  constructor(
    readonly code: RuntimeStartDenialCode,
    /** The environment variable whose Secret is missing or not operable (a name, never a value). */
    readonly variable?: string,
  ) {
    super(RUNTIME_START_DENIALS[code]);
    this.name = 'RuntimeStartDenied';
  }
}
