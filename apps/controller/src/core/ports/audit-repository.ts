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

export interface AuditRepository {
  append(event: AuditEventWrite): Promise<void>;
  /** Newest first; `after` is the opaque position of the last event of the previous page. */
  scan(page: PageRequest): Promise<(AuditEvent & { position: string })[]>;
}
