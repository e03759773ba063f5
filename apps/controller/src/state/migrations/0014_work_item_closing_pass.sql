-- A claim whose lease runs out on the item's last attempt is handed to a worker once more, as a
-- closing pass (no attempt spent): it gives up what that attempt may have left running — a
-- candidate, and the active revision Recreate stopped for it — then fails the item with
-- LEASE_EXPIRED. When that pass was claimed: a closing pass whose own lease runs out is not
-- handed out again, the claim fails the item itself.
ALTER TABLE work_items ADD COLUMN closing_claimed_at timestamptz;
