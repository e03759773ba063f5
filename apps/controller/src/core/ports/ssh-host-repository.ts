import type { SavedNamespaceSshHost } from '@occ/contracts';

/** What PUT …/ssh-host stores: the key is named by its Secret, never held here. */
export type SshHostWrite = Omit<SavedNamespaceSshHost, 'updatedAt'>;

/** Each Namespace's SSH host (at most one), keyed by the Namespace. */
export interface SshHostRepository {
  get(namespaceId: string): Promise<SavedNamespaceSshHost | null>;
  /** Creates or replaces the Namespace's host. */
  put(host: SshHostWrite): Promise<SavedNamespaceSshHost>;
  /** The host removed, or null when the Namespace had none. */
  delete(namespaceId: string): Promise<SavedNamespaceSshHost | null>;
  /**
   * Agents of the Namespace whose runtimes may be on its current host (at most `limit` ids, in
   * id order): one that wants to run or has an active revision, or a deleted one whose removal
   * from its target is still queued. Locks every Agent row of the Namespace for the rest of the
   * transaction, so no deploy, stop, delete or activation of one of them can slip in before the
   * host changes.
   */
  agentsOnHost(namespaceId: string, limit: number): Promise<string[]>;
}
