-- When each attempt (1, 2, …) of a work item was first claimed: the deployment event stream
-- replays a retried deploy's claims between its runtime's steps in the order they happened. A
-- convergence wait refunds its attempt and its re-claim keeps that attempt's first time, so the
-- array always holds at least `attempts` entries.
ALTER TABLE work_items ADD COLUMN attempt_claimed_at timestamptz[] NOT NULL DEFAULT '{}';

-- Items of earlier builds: one entry per attempt started; only the last one's time is known.
UPDATE work_items SET attempt_claimed_at = array_fill(NULL::timestamptz, ARRAY[attempts - 1]) || last_attempt_at
  WHERE attempts > 0;
