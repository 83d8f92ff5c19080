-- The event sweep (src/events/sweep.ts, run by the Cron Trigger): no event
-- stays `pending` without a delivery attempt scheduled.
--
-- next_attempt_at: when the next delivery attempt of a pending event is due
--   (ms): when it was logged or resent, and after each failed attempt the
--   time its queued retry is due (the retry schedule's delay). A pending
--   event still waiting well past this has lost its message: the sweep
--   queues it again.
-- pending_since: when the event's current round of delivery began (ms): when
--   it was logged, or last resent. A pending event older than the retry
--   horizon is marked `failed`, so events/list finds it and events/resend
--   sends it again.
ALTER TABLE events ADD COLUMN next_attempt_at INTEGER;
ALTER TABLE events ADD COLUMN pending_since INTEGER;

-- Events logged before this migration: due since their creation, so those
-- stranded by a lost message are queued again (or, past the horizon, failed)
-- by the first sweeps.
UPDATE events SET next_attempt_at = created, pending_since = created WHERE delivery_status = 'pending';

-- Each sweep step is a range scan of one of these, over pending events only:
-- a run reads what it changes, never the delivered or failed rows. They hold
-- pending rows only; delivery_status leads anyway, so the planner prefers
-- them (equality and range) to events_by_delivery (equality alone).
CREATE INDEX events_pending_due ON events (delivery_status, next_attempt_at) WHERE delivery_status = 'pending';
CREATE INDEX events_pending_since ON events (delivery_status, pending_since) WHERE delivery_status = 'pending';
