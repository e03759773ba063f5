import type { Secret } from '@occ/contracts';
import type { PageRequest } from './namespace-repository.ts';

/** A Secret as stored: metadata plus the driver-sealed value, which never leaves the server. */
export interface SecretRecord extends Secret {
  driverId: string;
  sealedValue: string;
}

export interface SecretRepository {
  insert(s: { id: string; namespaceId: string; name: string; driverId: string; sealedValue: string }): Promise<SecretRecord>;
  get(namespaceId: string, id: string): Promise<SecretRecord | null>;
  /** The Namespace a Secret id lives in, wherever that is (to tell "foreign" from "missing"). */
  namespaceOf(id: string): Promise<string | null>;
  scan(namespaceId: string, page: PageRequest): Promise<SecretRecord[]>;
  /** Replaces the sealed value and bumps the version. */
  rotate(namespaceId: string, id: string, sealedValue: string): Promise<SecretRecord | null>;
  /** Agents, Configurations, the Namespace's SSH host (kind `ssh-host`) and the sign-in provider (kind `sign-in-provider`) that refer to the Secret (at most `limit`). */
  referrers(namespaceId: string, id: string, limit: number): Promise<{ kind: string; id: string }[]>;
  delete(namespaceId: string, id: string): Promise<boolean>;
}
