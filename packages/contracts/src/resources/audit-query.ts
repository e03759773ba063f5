import { Type, type Static } from '@sinclair/typebox';
import { Closed, CURSOR_MAX_LENGTH, IdSchema } from '../common.ts';

/**
 * The audit log's filters (GET /audit-events) and its export (GET /audit-events/export). Every
 * filter is optional; those given are combined with AND (docs/access-control.md, "Audit").
 */

/** An exact action (`agents.deploy`) or a prefix ending in `.*` (`agents.*`). */
export const AUDIT_ACTION_PATTERN = '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*(\\.\\*)?$';

/**
 * RFC 3339 `date-time` (section 5.6): a full date, `T`, a time with optional fraction, and `Z` or
 * a numeric offset. The schema checks the shape; {@link rfc3339Instant} the calendar.
 */
const RFC3339 =
  /^([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]|60)(?:\.([0-9]{1,9}))?(?:([Zz])|([+-])([01][0-9]|2[0-3]):([0-5][0-9]))$/;

const CursorSchema = Type.String({ minLength: 1, maxLength: CURSOR_MAX_LENGTH, pattern: '^[A-Za-z0-9_-]+$' });
const TimeSchema = (description: string) => Type.String({ maxLength: 40, pattern: RFC3339.source, description });

export const AuditEventQuerySchema = Closed({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  cursor: Type.Optional(CursorSchema),
  actorId: Type.Optional(IdSchema('principal')),
  action: Type.Optional(Type.String({ maxLength: 100, pattern: AUDIT_ACTION_PATTERN, description: 'An exact action, or a prefix ending in `.*` (`agents.*`).' })),
  namespaceId: Type.Optional(IdSchema('namespace')),
  resourceKind: Type.Optional(Type.String({ maxLength: 64, pattern: '^[a-z][a-z0-9_]*$' })),
  resourceId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_.:-]+$' })),
  since: Type.Optional(TimeSchema('RFC 3339; events at or after this instant.')),
  until: Type.Optional(TimeSchema('RFC 3339; events before this instant (not at it).')),
});
export type AuditEventQuery = Static<typeof AuditEventQuerySchema>;

/** The most events one export answer carries, and what it carries when `limit` is not given. */
export const AUDIT_EXPORT_LIMIT = 1000;

export const AuditExportQuerySchema = Closed({
  cursor: Type.Optional(CursorSchema),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: AUDIT_EXPORT_LIMIT })),
});

/** The export's answer header carrying the cursor to ask with next (the same one when nothing was new). */
export const AUDIT_EXPORT_CURSOR_HEADER = 'occ-next-cursor';

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const leapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const daysIn = (year: number, month: number) => (month === 2 && leapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!);

/**
 * An RFC 3339 timestamp as the UTC instant it names, in the form PostgreSQL and JavaScript both
 * read (`2024-05-01T10:00:00.000000Z`, microseconds, a leap second rolled into the next minute),
 * or null when it is no timestamp or names a day that does not exist (`2023-02-29`) or an instant
 * outside years 1–9999.
 */
export function rfc3339Instant(text: string): string | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (day > daysIn(year, month)) return null;
  const offsetMinutes = m[9] === undefined ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offsetMinutes, second, 0);
  const utcYear = date.getUTCFullYear();
  if (utcYear < 1 || utcYear > 9999) return null;
  const micros = (m[7] ?? '').padEnd(6, '0').slice(0, 6);
  return `${date.toISOString().slice(0, 19)}.${micros}Z`;
}
