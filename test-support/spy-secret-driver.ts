import type { SecretBinding, SecretDriver } from '../apps/controller/src/core/ports/secret-driver.ts';

export interface SpySecretDriver extends SecretDriver {
  /** Every withValue call (the Secret it opened), in order: proves what was NOT read. */
  readonly reads: SecretBinding[];
  /** Runs after the value is read and before the caller's callback (to stage a race). */
  beforeUse: ((binding: SecretBinding) => Promise<void>) | null;
  /** Makes the next reads fail as an unreachable backend would (a plain Error, not an OccError). */
  unavailable: boolean;
}

/** Wraps a SecretDriver (test support only): records reads and can stage races and outages. */
export function spySecretDriver(inner: SecretDriver): SpySecretDriver {
  const spy: SpySecretDriver = {
    id: inner.id,
    reads: [],
    beforeUse: null,
    unavailable: false,
    seal: (value, binding) => inner.seal(value, binding),
    async withValue(sealed, binding, use) {
      spy.reads.push({ ...binding });
      if (spy.unavailable) throw Object.assign(new Error('secret backend unreachable'), { code: 'ECONNRESET' });
      return inner.withValue(sealed, binding, async (value) => {
        await spy.beforeUse?.(binding);
        return use(value);
      });
    },
  };
  return spy;
}
