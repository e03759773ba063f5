import { isRedactable } from './redaction.ts';

/** Values remembered per revision: every rotation since this process started, up to this many (newest first). */
const MAX_PER_REVISION = 16;

/**
 * The Secret values this process delivered to each revision's starts, kept in memory only (never
 * in a file) so that its log and its gateway's replies can be redacted of them: a provider error
 * or a plugin may print one. Kept until the revision is retired (its log still holds them), for
 * the drivers that deliver values themselves (local, ssh). Keys are `<agentId>/<revisionId>`.
 */
export class DeliveredValues {
  private readonly byRevision = new Map<string, string[]>();

  remember(key: string, values: readonly string[]): void {
    const known = this.byRevision.get(key) ?? [];
    const fresh = [...new Set(values.filter((value) => isRedactable(value) && !known.includes(value)))];
    if (fresh.length > 0) this.byRevision.set(key, [...fresh, ...known].slice(0, MAX_PER_REVISION));
  }

  of(key: string): readonly string[] {
    return this.byRevision.get(key) ?? [];
  }

  forget(key: string): void {
    this.byRevision.delete(key);
  }

  /** Every revision of a deleted Agent. */
  forgetAgent(agentId: string): void {
    for (const key of this.byRevision.keys()) if (key.startsWith(`${agentId}/`)) this.byRevision.delete(key);
  }
}
