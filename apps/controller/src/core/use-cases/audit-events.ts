import { createHash } from 'node:crypto';
import { AUDIT_EXPORT_LIMIT, rfc3339Instant, type AuditEvent, type AuditEventQuery, type ErrorDetail } from '@occ/contracts';
import type { ControllerDeps } from '../deps.ts';
import { invalid } from '../errors.ts';
import type { Caller } from '../iam/access.ts';
import { pageVisible, type Page } from '../pagination.ts';
import type { AuditFilter, ExportPosition } from '../ports/audit-repository.ts';

/** The filter a query asks for: since/until as UTC instants (each checked), an action prefix apart. */
function auditFilter(query: AuditEventQuery): AuditFilter {
  const filter: AuditFilter = {};
  if (query.actorId !== undefined) filter.actorId = query.actorId;
  if (query.action !== undefined) {
    if (query.action.endsWith('.*')) filter.actionPrefix = query.action.slice(0, -1);
    else filter.action = query.action;
  }
  if (query.namespaceId !== undefined) filter.namespaceId = query.namespaceId;
  if (query.resourceKind !== undefined) filter.resourceKind = query.resourceKind;
  if (query.resourceId !== undefined) filter.resourceId = query.resourceId;
  const details: ErrorDetail[] = [];
  for (const key of ['since', 'until'] as const) {
    const text = query[key];
    if (text === undefined) continue;
    const instant = rfc3339Instant(text);
    if (instant === null) details.push({ path: `/${key}`, code: 'INVALID_VALUE' });
    else filter[key] = instant;
  }
  if (details.length > 0) throw invalid('since and until are RFC 3339 timestamps of days that exist, in years 1 to 9999.', details);
  if (filter.since !== undefined && filter.until !== undefined && filter.since > filter.until) {
    throw invalid('until must not be before since.', [{ path: '/until', code: 'INVALID_COMBINATION' }]);
  }
  return filter;
}

/**
 * A cursor belongs to the filters it was taken under: the list's name carries a digest of them,
 * so a cursor sent with other filters is refused (400 naming `/cursor`) rather than misread.
 * Without filters the name stays `audit`.
 */
function listName(filter: AuditFilter): string {
  const entries = Object.entries(filter).sort(([a], [b]) => (a < b ? -1 : 1));
  if (entries.length === 0) return 'audit';
  return `audit:${createHash('sha256').update(JSON.stringify(entries)).digest('base64url').slice(0, 22)}`;
}

export async function listAuditEvents(deps: ControllerDeps, _caller: Caller, query: AuditEventQuery): Promise<Page<AuditEvent>> {
  const filter = auditFilter(query);
  const page = await deps.state.read((uow) =>
    pageVisible(
      listName(filter),
      query,
      (p) => uow.audit.scan(p, filter),
      (e) => e.position,
      () => true,
    ),
  );
  return { items: page.items.map(({ position: _position, ...event }) => event), nextCursor: page.nextCursor };
}

/** The export's cursor: base64url of `{e: "audit-export", x: xid, s: seq}`, both decimal. */
const EXPORT_LIST = 'audit-export';
const DECIMAL = /^(0|[1-9][0-9]{0,19})$/;
const BEGINNING: ExportPosition = { xid: '0', seq: '0' };

const encodeExportCursor = (at: ExportPosition) => Buffer.from(JSON.stringify({ e: EXPORT_LIST, x: at.xid, s: at.seq }), 'utf8').toString('base64url');

const badCursor = (message = 'The cursor is not a cursor of the audit export.') => invalid(message, [{ path: '/cursor', code: 'INVALID_VALUE' }]);

function decodeExportCursor(cursor: string | undefined): ExportPosition {
  if (cursor === undefined) return BEGINNING;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  const { e, x, s } = (parsed ?? {}) as { e?: unknown; x?: unknown; s?: unknown };
  if (e !== EXPORT_LIST || typeof x !== 'string' || typeof s !== 'string' || !DECIMAL.test(x) || !DECIMAL.test(s)) throw badCursor();
  // xid8 and bigint: larger decimals are no position this database hands out.
  if (BigInt(x) > 2n ** 64n - 1n || BigInt(s) > 2n ** 63n - 1n) throw badCursor();
  return { xid: x, seq: s };
}

export interface AuditExport {
  /** One JSON event per line, each ending in a newline; empty when nothing new is exportable. */
  ndjson: string;
  /** Where the next export starts: after the last event here, or the cursor asked with. */
  nextCursor: string;
}

/**
 * The audit export (docs/access-control.md, "Exporting the audit log"): the events after the
 * cursor, oldest first, up to `limit`, none of a transaction that may still be open, and never
 * one past an event a later export could still see appear before it.
 */
export async function exportAuditEvents(deps: ControllerDeps, _caller: Caller, query: { cursor?: string; limit?: number }): Promise<AuditExport> {
  const after = decodeExportCursor(query.cursor);
  const { events, xmax } = await deps.state.read((uow) => uow.audit.exportAfter(after, query.limit ?? AUDIT_EXPORT_LIMIT));
  // A cursor past every transaction this database has begun was handed out by another one (a
  // logical restore into a new cluster starts its transaction ids again): refused, not waited on.
  if (BigInt(after.xid) >= BigInt(xmax)) throw badCursor('The cursor is ahead of this database; export again from the beginning (docs/access-control.md).');
  const last = events.at(-1);
  return {
    ndjson: events.map(({ at: _at, ...event }) => `${JSON.stringify(event)}\n`).join(''),
    nextCursor: last ? encodeExportCursor(last.at) : (query.cursor ?? encodeExportCursor(BEGINNING)),
  };
}
