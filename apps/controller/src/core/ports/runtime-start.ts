/**
 * What a ComputeDriver asks the control plane each time it starts a revision's runtime — the
 * first start, a supervised restart, or the active revision restored (after a failed candidate,
 * or after OCC restarted). The driver never decides on its own that a runtime may run or with
 * which Secrets; which revisions should run is the worker's to say (worker/recover-active.ts).
 */
export interface RuntimeStartAuthority {
  /**
   * Re-authorizes one start of `revision` and runs `use` with the Secrets it delivers: its
   * Configuration's bindings and the Agent's harness credential. The values exist only for the
   * duration of `use`: start the process inside it and keep no copy. Throws RuntimeStartDenied.
   */
  withStartEnvironment<T>(revision: RevisionRef, use: (secrets: StartSecrets) => Promise<T>): Promise<T>;
}

/** What one start delivers (frozen; values, so never logged, stored or kept past `use`). */
export interface StartSecrets {
  /** The Configuration's Secret bindings: variable name → value. */
  readonly variables: Readonly<Record<string, string>>;
  /**
   * The Agent's harness credential (its `codex_pat`) when the revision has one. Kept apart from
   * `variables` so no Configuration binding can pose as it: the driver delivers it under the
   * reserved name the manifest announces (`harnessAuth.environment`, OCC_RUNTIME_CODEX_PAT).
   */
  readonly harnessAuth: Readonly<{ method: 'codex_pat'; value: string }> | null;
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
  /** The Agent's own principal no longer holds secret:operate on a Secret the revision uses (a binding or the codex_pat). */
  SECRET_ACCESS_REVOKED: "The Agent's principal no longer holds secret:operate on a Secret the revision uses.",
  /** A Secret the revision uses is the Namespace's SSH host client key, which no Agent receives (docs/compute-ssh.md, "Hosts"). */
  SECRET_RESERVED: "A Secret the revision uses is the Namespace's SSH host client key, which no Agent receives.",
  /** A Secret the revision uses was deleted (or moved out of the Namespace) since the revision was admitted. */
  SECRET_UNAVAILABLE: 'A Secret the revision uses no longer exists.',
} as const;
export type RuntimeStartDenialCode = keyof typeof RUNTIME_START_DENIALS;

export class RuntimeStartDenied extends Error {
  constructor(
    readonly code: RuntimeStartDenialCode,
    /** The environment variable whose Secret is missing or not operable (a name, never a value; OCC_RUNTIME_CODEX_PAT for the codex_pat). */
    readonly variable?: string,
  ) {
    super(RUNTIME_START_DENIALS[code]);
    this.name = 'RuntimeStartDenied';
  }
}
