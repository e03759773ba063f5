import type { Configuration } from '@occ/contracts';
import type { PageRequest } from './namespace-repository.ts';

export interface ConfigurationWrite {
  name: string;
  values: Record<string, unknown>;
  secretBindings: Record<string, { secretId: string }>;
}

export interface ConfigurationRepository {
  insert(c: ConfigurationWrite & { id: string; namespaceId: string }): Promise<Configuration>;
  get(namespaceId: string, id: string): Promise<Configuration | null>;
  /** Locks the row for the rest of the transaction. */
  getForUpdate(namespaceId: string, id: string): Promise<Configuration | null>;
  scan(namespaceId: string, page: PageRequest): Promise<Configuration[]>;
  /** Writes the whole new state and increases the generation by one. */
  update(namespaceId: string, id: string, c: ConfigurationWrite): Promise<Configuration>;
  referrers(namespaceId: string, id: string, limit: number): Promise<{ kind: string; id: string }[]>;
  delete(namespaceId: string, id: string): Promise<boolean>;
}
