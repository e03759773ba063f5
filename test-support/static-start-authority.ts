import {
  RuntimeStartDenied,
  type RevisionRef,
  type RuntimeStartAuthority,
  type RuntimeStartDenialCode,
  type StartSecrets,
} from '../apps/controller/src/core/ports/runtime-start.ts';

/**
 * An in-memory RuntimeStartAuthority for ComputeDriver tests that run without a database: the
 * test says what each start delivers and which starts are refused; it counts every start it was
 * asked about (which revisions should run, the worker says: restore-as-worker.ts). The real one
 * (core/use-cases/runtime-start.ts) is tested against both databases.
 */
export class StaticStartAuthority implements RuntimeStartAuthority {
  /** Every withStartEnvironment call, in order. */
  readonly starts: RevisionRef[] = [];
  private readonly environments = new Map<string, Record<string, string>>();
  private readonly codexPats = new Map<string, string>();
  private readonly denials = new Map<string, RuntimeStartDenied>();

  /** The variables every later start of `revisionId` delivers. */
  deliver(revisionId: string, environment: Record<string, string>): this {
    this.environments.set(revisionId, { ...environment });
    return this;
  }

  /** The codex_pat every later start of `revisionId` delivers (StartSecrets.harnessAuth). */
  deliverCodexPat(revisionId: string, value: string): this {
    this.codexPats.set(revisionId, value);
    return this;
  }

  /** Later starts of `revisionId` are refused with `code` until allow(). */
  deny(revisionId: string, code: RuntimeStartDenialCode, variable?: string): this {
    this.denials.set(revisionId, new RuntimeStartDenied(code, variable));
    return this;
  }

  allow(revisionId: string): this {
    this.denials.delete(revisionId);
    return this;
  }

  startsOf(revisionId: string): number {
    return this.starts.filter((r) => r.revisionId === revisionId).length;
  }

  async withStartEnvironment<T>(revision: RevisionRef, use: (secrets: StartSecrets) => Promise<T>): Promise<T> {
    this.starts.push({ ...revision });
    const denied = this.denials.get(revision.revisionId);
    if (denied) throw denied;
    const pat = this.codexPats.get(revision.revisionId);
    return use(
      Object.freeze({
        variables: Object.freeze({ ...(this.environments.get(revision.revisionId) ?? {}) }),
        harnessAuth: pat === undefined ? null : Object.freeze({ method: 'codex_pat' as const, value: pat }),
      }),
    );
  }
}
