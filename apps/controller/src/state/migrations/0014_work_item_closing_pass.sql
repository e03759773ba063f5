-- A claim whose lease runs out on the item's last attempt is handed to a worker once more, as a
-- closing pass (no attempt spent) that ends it with what that attempt left to do: a deploy's
-- candidate is given up (and the active revision Recreate stopped for it brought back) before the
-- item fails with LEASE_EXPIRED; a stop or a removal runs to its end (worker/closing-pass.ts).
-- When that pass was claimed: a closing pass whose own lease runs out is not handed out again,
-- the claim fails the item itself.
ALTER TABLE work_items ADD COLUMN closing_claimed_at timestamptz;
