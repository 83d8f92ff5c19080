-- Retention walks the tid index by rowid behind a cursor, as it walks the
-- event log by id (0002_event_log_watch.sql), instead of reading
-- tid_index_retention. D1 bills every index entry a statement writes as one
-- more row written (https://developers.cloudflare.com/d1/platform/pricing/,
-- "rows written"), and that index took an entry when a create was completed
-- (status = 1): 1 of the 2 rows the completion cost, 1 of the 4 a tid row
-- cost over its life.
--
-- A row's rowid follows its claim: SQLite gives a new row the largest rowid
-- plus one, and rows are claimed in time order. So the walk (src/tids/tid-index.ts
-- pruneTids) goes through the rows in rowid order, claimed before the
-- window's cutoff, a bounded batch a run, and deletes those completed and
-- answered before the cutoff; it passes a pending claim (never deleted:
-- its lease decides) and a fence (deleted by tid_index_fences), and it
-- stops at the first row claimed inside the window, or answered inside it
-- within TID_LATE_MS (an hour) of its claim: that row is due within the
-- hour, and the walk waits for it. A row answered later than that after its
-- claim (a takeover, a completion long owed; and any row the walk passed
-- pending and that was completed after, which is 90 days or more after its
-- claim) is in tid_index_late, a few in a million creates, and deleted by a
-- range of it once due (deleteLateTids). So every completed row is deleted
-- at the first run after its window ends (or within the hour for the rows
-- right at the cutoff), none before, and a run reads what it deletes, the
-- rows it passes, and its cursor.
--
-- The walk starts at the first row; the rows there are the oldest.
CREATE TABLE tid_walk (
  name  TEXT PRIMARY KEY,   -- 'retention'
  at    INTEGER NOT NULL,   -- the last rowid the walk passed
  prev  INTEGER NOT NULL    -- where the last batch started: it worked on (prev, at]
) STRICT, WITHOUT ROWID;

INSERT INTO tid_walk (name, at, prev) VALUES ('retention', 0, 0);

-- The rows answered more than TID_LATE_MS (3,600,000 ms) after their claim,
-- by when they were answered. The condition is written as the statement
-- that reads it writes it, so SQLite can use the index.
CREATE INDEX tid_index_late ON tid_index (updated_at) WHERE status = 1 AND updated_at - created_at > 3600000;

-- contract: tid_index_retention goes in the release that stopped reading it
-- (this one). The release before names no index either: its retention
-- (`status = 1 AND updated_at < ?1 ORDER BY updated_at`) still deletes the
-- same rows after a rollback, by reading the whole tid index of a database
-- each run (at 1M payments a day, 5 databases, 90 days: ~18M rows a
-- database, about 1-2 s of its one thread; $130 a day of rows read; at 10M
-- a day, 46 databases, ~20M rows each, visited every third minute: $430 a
-- day). docs/production.md ("Rollback") says when to make the index again
-- instead, and how.
DROP INDEX tid_index_retention;
