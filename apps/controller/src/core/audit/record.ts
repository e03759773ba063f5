import type { Caller } from '../iam/access.ts';
import { newId } from '../ids.ts';
import type { AuditEventWrite } from '../ports/audit-repository.ts';
import type { UnitOfWork } from '../ports/state.ts';
import { redact } from './redact.ts';

export interface AuditEntry {
  action: string;
  namespaceId?: string | null;
  resource?: { kind: string; id: string | null };
  details?: Record<string, unknown>;
  outcome?: 'success' | 'denied' | 'failure';
}

/** The audit event of a mutation, redacted and ready to store (by `recordAudit` or by a write that carries it). */
export function auditEvent(caller: Caller | null, entry: AuditEntry): AuditEventWrite {
  return {
    id: newId('audit_event'),
    actorId: caller?.principalId ?? null,
    action: entry.action,
    outcome: entry.outcome ?? 'success',
    namespaceId: entry.namespaceId ?? null,
    resource: entry.resource ?? null,
    requestId: caller?.requestId ?? null,
    details: redact(entry.details ?? {}) as Record<string, unknown>,
  };
}

/** Appends the audit event of a mutation, inside the mutation's own transaction. */
export async function recordAudit(uow: UnitOfWork, caller: Caller | null, entry: AuditEntry): Promise<void> {
  await uow.audit.append(auditEvent(caller, entry));
}

/** An event no principal caused (a sign-in refused before anyone was known): the request id ties it to the request. */
export async function recordAnonymousAudit(uow: UnitOfWork, requestId: string, entry: AuditEntry): Promise<void> {
  await uow.audit.append({ ...auditEvent(null, entry), requestId });
}
