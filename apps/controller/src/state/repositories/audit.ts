import type { AuditEvent } from '@occ/contracts';
import type { AuditEventWrite, AuditFilter, AuditRepository } from '../../core/ports/audit-repository.ts';
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

const toEvent = (r: Row): AuditEvent => ({
  id: r.id,
  occurredAt: iso(r.occurred_at),
  actorId: r.actor_id,
  action: r.action,
  outcome: r.outcome,
  namespaceId: r.namespace_id,
  resource: r.resource_kind === null ? null : { kind: r.resource_kind, id: r.resource_id },
  requestId: r.request_id,
  details: r.details,
});

/** An export row: the event, its place in the export's order, and the snapshot's xmax. */
type ExportRow = Row & { xid_text: string; seq_text: string; xmax: string };

const EVENT_COLUMNS = 'seq, id, occurred_at, actor_id, action, outcome, namespace_id, resource_kind, resource_id, request_id, details';

/** `_` and `%` are LIKE's wildcards (an action may hold `_`); a backslash is its escape. */
const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The WHERE conditions of a filter, with its parameters numbered from `from`. */
function filterConditions(filter: AuditFilter, from: number): { conditions: string[]; values: unknown[] } {
  const conditions: string[] = [];
  const values: unknown[] = [];
  const add = (condition: (placeholder: string) => string, value: unknown) => {
    values.push(value);
    conditions.push(condition(`$${from + values.length - 1}`));
  };
  if (filter.actorId !== undefined) add((p) => `actor_id = ${p}::text`, filter.actorId);
  if (filter.action !== undefined) add((p) => `action = ${p}::text`, filter.action);
  if (filter.actionPrefix !== undefined) add((p) => `action LIKE ${p}::text`, likePrefix(filter.actionPrefix));
  if (filter.namespaceId !== undefined) add((p) => `namespace_id = ${p}::text`, filter.namespaceId);
  if (filter.resourceKind !== undefined) add((p) => `resource_kind = ${p}::text`, filter.resourceKind);
  if (filter.resourceId !== undefined) add((p) => `resource_id = ${p}::text`, filter.resourceId);
  if (filter.since !== undefined) add((p) => `occurred_at >= ${p}::timestamptz`, filter.since);
  if (filter.until !== undefined) add((p) => `occurred_at < ${p}::timestamptz`, filter.until);
  return { conditions, values };
}

/**
 * The export, in one statement so that one snapshot decides both what is visible and the
 * watermark: events strictly after the cursor whose transaction id is below the snapshot's xmin
 * (all of those have ended; a row of theirs is visible or was rolled back). The lateral join
 * answers one row (the snapshot's xmax) even when no event is new.
 */
const EXPORT = `WITH watermark AS MATERIALIZED (SELECT pg_current_snapshot() AS snapshot)
  SELECT pg_snapshot_xmax(w.snapshot)::text AS xmax, e.*
  FROM watermark w LEFT JOIN LATERAL (
    SELECT audit_events.xid AS position_xid, xid::text AS xid_text, seq::text AS seq_text, ${EVENT_COLUMNS} FROM audit_events
    WHERE xid < pg_snapshot_xmin(w.snapshot) AND (xid, seq) > ($1::xid8, $2::bigint)
    ORDER BY audit_events.xid, audit_events.seq LIMIT $3
  ) e ON true
  ORDER BY e.position_xid, e.seq`;

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
    async scan(page, filter = {}) {
      if (page.after !== undefined && !POSITION.test(page.after)) {
        throw invalid('The cursor is not valid for this list.', [{ path: '/cursor', code: 'INVALID_VALUE' }]);
      }
      const { conditions, values } = filterConditions(filter, 3);
      const { rows } = await run<Row>(
        `SELECT ${EVENT_COLUMNS} FROM audit_events
         WHERE ($1::bigint IS NULL OR seq < $1::bigint)${conditions.map((c) => ` AND ${c}`).join('')}
         ORDER BY seq DESC LIMIT $2`,
        [page.after ?? null, page.limit, ...values],
      );
      return rows.map((r) => ({ ...toEvent(r), position: String(r.seq) }));
    },
    async exportAfter(after, limit) {
      const { rows } = await run<ExportRow | { xmax: string; xid_text: null }>(EXPORT, [after.xid, after.seq, limit]);
      const events = rows.flatMap((r) => (r.xid_text === null ? [] : [{ ...toEvent(r), at: { xid: r.xid_text, seq: r.seq_text } }]));
      return { events, xmax: rows[0]!.xmax };
    },
  };
}
