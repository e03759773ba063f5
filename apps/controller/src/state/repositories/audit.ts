import type { AuditEvent } from '@occ/contracts';
import type { AuditEventWrite, AuditRepository } from '../../core/ports/audit-repository.ts';
import { invalid } from '../../core/errors.ts';
import type { Queryable } from '../database.ts';
import { runner } from '../errors.ts';
import { iso, jsonb } from './rows.ts';

interface Row {
  seq: number | string;
  id: string;
  occurred_at: Date;
  actor_id: string | null;
  action: string;
  outcome: AuditEvent['outcome'];
  namespace_id: string | null;
  resource_kind: string | null;
  resource_id: string | null;
  request_id: string | null;
  details: Record<string, unknown>;
}

const toEvent = (r: Row): AuditEvent & { position: string } => ({
  id: r.id,
  occurredAt: iso(r.occurred_at),
  actorId: r.actor_id,
  action: r.action,
  outcome: r.outcome,
  namespaceId: r.namespace_id,
  resource: r.resource_kind === null ? null : { kind: r.resource_kind, id: r.resource_id },
  requestId: r.request_id,
  details: r.details,
  position: String(r.seq),
});

/** The columns an audit event write binds, in the order of {@link auditValues}. */
export const AUDIT_COLUMNS = 'id, actor_id, action, outcome, namespace_id, resource_kind, resource_id, request_id, details';

/**
 * Typed placeholders `$from…$from+8` for {@link AUDIT_COLUMNS}, usable in VALUES and in INSERT … SELECT.
 * `details` may wrap the details placeholder in an expression (an INSERT … SELECT completing them).
 */
export const auditPlaceholders = (from: number, details = (placeholder: string) => placeholder): string =>
  Array.from({ length: 9 }, (_, i) => (i === 8 ? details(`$${from + i}::jsonb`) : `$${from + i}::text`)).join(', ');

export const auditValues = (e: AuditEventWrite): unknown[] => [
  e.id,
  e.actorId,
  e.action,
  e.outcome,
  e.namespaceId,
  e.resource?.kind ?? null,
  e.resource?.id ?? null,
  e.requestId,
  jsonb(e.details),
];

const APPEND = `INSERT INTO audit_events (${AUDIT_COLUMNS}) VALUES (${auditPlaceholders(1)})`;

// A position is a seq we handed out; anything else in a (client-held) cursor is refused.
const POSITION = /^[1-9][0-9]{0,17}$/;

export function auditRepository(q: Queryable): AuditRepository {
  const run = runner(q);
  return {
    async append(e) {
      await run(APPEND, auditValues(e));
    },
    async scan(page) {
      if (page.after !== undefined && !POSITION.test(page.after)) {
        throw invalid('The cursor is not valid for this list.', [{ path: '/cursor', code: 'INVALID_VALUE' }]);
      }
      const { rows } = await run<Row>(
        `SELECT seq, id, occurred_at, actor_id, action, outcome, namespace_id, resource_kind, resource_id, request_id, details
         FROM audit_events WHERE ($1::bigint IS NULL OR seq < $1::bigint) ORDER BY seq DESC LIMIT $2`,
        [page.after ?? null, page.limit],
      );
      return rows.map(toEvent);
    },
  };
}
