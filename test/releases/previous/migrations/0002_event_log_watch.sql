-- The event log writes fewer rows per event. D1 bills every index entry a
-- statement writes as one more row written
-- (https://developers.cloudflare.com/d1/platform/pricing/, "rows written";
-- the bench counts each statement's meta.rows_written: bench/lib/costs.mjs),
-- and events_by_status took one entry when an event was logged and rewrote it
-- when it was delivered: 2 of the 7 rows an event cost over its life (logged 4,
-- delivered 2, pruned 1).
--
-- Most events are delivered within a second, so the status index held each of
-- them for nothing. Now an index holds only the events the sweep has seen
-- still undelivered (`watched`), and an event delivered in time is logged,
-- delivered and pruned through its own row alone (the row, plus
-- events_by_record and events_by_type at logging: 5 rows over its life):
--
-- - the sweep (src/events/sweep.ts) walks the log in id order, behind a cursor
--   (events_cursors 'sweep'), over the events logged before its stale cutoff,
--   a bounded batch a run, and marks `watched` each it finds still pending; it
--   then reads the watched pending events of events_watched, as it read the
--   pending events of events_by_status before;
-- - an event logged late (its id, its creation time, already behind where the
--   walk may be) is logged watched (src/events/log-database.ts recordEvents),
--   and so is one dead-lettered or resent: a pending or failed event is never
--   out of sight behind the cursor;
-- - retention deletes delivered events by walking the log in id order behind
--   its own cursor (events_cursors 'prune'), and the watched ones of each
--   status by a range of events_watched, so a run reads only a batch.
--
-- Existing rows keep every column; the undelivered ones are watched here, and
-- the sweep's walk starts after the newest event logged so far (every older
-- pending one is watched now). No statement names an index, so code from
-- before this file still runs on it (its sweep and prune then scan the log
-- instead of an index: roll forward rather than back); what it logs or
-- dead-letters meanwhile is ahead of the sweep's walk, which watches it.

DROP INDEX events_by_status;

-- 1 once the event may be undelivered after the sweep's stale cutoff (the walk
-- found it pending, it was logged late, dead-lettered or resent); NULL while
-- it is fresh, and for ever for an event delivered before the walk reached it.
-- Never cleared: a watched event stays in events_watched until it is pruned.
ALTER TABLE events ADD COLUMN watched INTEGER CHECK (watched = 1);

UPDATE events SET watched = 1 WHERE status <> 1;

-- The watched events by status, oldest first: the sweep's scans (status = 0),
-- events/list by `failed` and the watched part of `pending` and `delivered`,
-- and retention's prune of each status (status, id < cutoff).
CREATE INDEX events_watched ON events (status, id) WHERE watched = 1;

-- Where each walk over the log stands, one row per walk: `id` is the last
-- event id it passed, `prev` where the run before started (a run's batch
-- works on (prev, id]). 'evt_' sorts before every event id.
CREATE TABLE events_cursors (
  name  TEXT PRIMARY KEY,  -- 'sweep' or 'prune'
  id    TEXT NOT NULL,
  prev  TEXT NOT NULL
) STRICT, WITHOUT ROWID;

INSERT INTO events_cursors (name, id, prev)
  SELECT 'sweep', COALESCE(MAX(id), 'evt_'), COALESCE(MAX(id), 'evt_') FROM events;
INSERT INTO events_cursors (name, id, prev) VALUES ('prune', 'evt_', 'evt_');
