-- The audit log's filters and its export (GET /audit-events?…, GET /audit-events/export;
-- docs/access-control.md, "Audit").
--
-- The export's order is commit-safe, which a sequence number is not: an event is written inside
-- the transaction of the action it records, so a transaction that took a lower seq can commit
-- after a higher one was exported. Each event keeps the id of the transaction that wrote it
-- (the top-level one, also from a subtransaction); the export hands out only events whose xid is
-- below the reading snapshot's xmin — every transaction that could still commit has an xid at or
-- above it — ordered by (xid, seq), and its cursor is the last (xid, seq) it handed out.
-- Existing events take this migration's xid (one value, so they keep their seq order), below
-- every later event's.
ALTER TABLE audit_events ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE UNIQUE INDEX audit_events_export ON audit_events (xid, seq);

-- The list's filters (newest first by seq). An action prefix (`agents.*`) is a LIKE 'agents.%',
-- which a text_pattern_ops index serves under any collation. A resource is looked up by its id
-- (ids are unique across kinds); a kind alone is a filter on the seq order, not worth an index.
CREATE INDEX audit_events_actor ON audit_events (actor_id, seq) WHERE actor_id IS NOT NULL;
CREATE INDEX audit_events_action ON audit_events (action text_pattern_ops);
CREATE INDEX audit_events_namespace ON audit_events (namespace_id, seq) WHERE namespace_id IS NOT NULL;
CREATE INDEX audit_events_resource ON audit_events (resource_id, seq) WHERE resource_id IS NOT NULL;
CREATE INDEX audit_events_occurred_at ON audit_events (occurred_at);
