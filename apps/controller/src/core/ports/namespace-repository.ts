import type { Namespace } from '@occ/contracts';

export interface PageRequest {
  /** Exclusive lower bound in key order (opaque to callers above the use case). */
  after?: string;
  limit: number;
}

export interface NamespaceRepository {
  insert(ns: { id: string; name: string }): Promise<Namespace>;
  get(id: string): Promise<Namespace | null>;
  /** Rows in id order after `after`; the caller filters by access and pages. */
  scan(page: PageRequest): Promise<Namespace[]>;
  /** What still lives in the Namespace: `{kind, id}` of at most `limit` resources. */
  remaining(id: string, limit: number): Promise<{ kind: string; id: string }[]>;
  delete(id: string): Promise<boolean>;
}
