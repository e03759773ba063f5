import type { AuditEvent } from '@occ/contracts';
import type { PageRequest } from './namespace-repository.ts';

export interface AuditEventWrite {
  id: string;
  actorId: string | null;
  action: string;
  outcome: AuditEvent['outcome'];
  namespaceId: string | null;
  resource: { kind: string; id: string | null } | null;
  requestId: string | null;
  details: Record<string, unknown>;
}

/** What a list of the audit log keeps; every field given must match (AND). */
export interface AuditFilter {
  actorId?: string;
  /** An exact action. */
  action?: string;
  /** Actions that start with this text (`agents.` for `agents.*`). */
  actionPrefix?: string;
  namespaceId?: string;
  resourceKind?: string;
  resourceId?: string;
  /** Inclusive, a UTC instant PostgreSQL reads. */
  since?: string;
  /** Exclusive, a UTC instant PostgreSQL reads. */
  until?: string;
}

/** A place in the export's order: the writing transaction's id, then seq (both decimal). */
export interface ExportPosition {
  xid: string;
  seq: string;
}

export interface AuditRepository {
  append(event: AuditEventWrite): Promise<void>;
  /** Newest first; `after` is the opaque position of the last event of the previous page. */
  scan(page: PageRequest, filter?: AuditFilter): Promise<(AuditEvent & { position: string })[]>;
  /**
   * Oldest first in (xid, seq) order, strictly after `after`, and only events whose transaction
   * is below the reading snapshot's xmin: none that an open transaction could still precede.
   * `xmax` is the snapshot's next unassigned transaction id (a cursor at or above it did not come
   * from this database's history).
   */
  exportAfter(after: ExportPosition, limit: number): Promise<{ events: (AuditEvent & { at: ExportPosition })[]; xmax: string }>;
}
