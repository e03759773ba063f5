/**
 * The SecretDriver port. Values go in once (seal) and come out only inside `withValue`,
 * for transient server-side use; the callback's result must never contain the value.
 */
export interface SecretDriver {
  readonly id: string;
  /** Seals a value for storage. `binding` ties the sealed form to one Secret (id + Namespace). */
  seal(value: string, binding: SecretBinding): string;
  withValue<T>(sealed: { driverId: string; sealedValue: string }, binding: SecretBinding, use: (value: string) => Promise<T>): Promise<T>;
}

export interface SecretBinding {
  namespaceId: string;
  secretId: string;
}
