-- agent:message (talking to an Agent through OCC, POST …/agents/:id/messages) is a new action.
-- The bootstrap administrator role holds every (action, kind) pair, as a fresh Installation's
-- does (ALL_PERMISSIONS): an existing one gains the new action's pairs. Other roles are the
-- operators' own and are left as they are.
UPDATE roles SET permissions = permissions || (
  SELECT coalesce(jsonb_agg(jsonb_build_object('action', 'message', 'resourceKind', kind) ORDER BY ordinality), '[]'::jsonb)
  FROM unnest(ARRAY['installation', 'namespace', 'secret', 'configuration', 'agent', 'agent_revision']) WITH ORDINALITY AS kinds (kind, ordinality)
  WHERE NOT roles.permissions @> jsonb_build_array(jsonb_build_object('action', 'message', 'resourceKind', kind))
)
WHERE name = 'installation-administrator';
