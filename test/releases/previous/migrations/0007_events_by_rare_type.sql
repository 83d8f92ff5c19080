-- events_by_type holds only the types a payment seldom makes. D1 bills every
-- index entry a statement writes as one more row written
-- (https://developers.cloudflare.com/d1/platform/pricing/, "rows written"),
-- and the index took one entry for every event logged: 1 of the 2 rows
-- logging an event cost, 1 of the 4 over its life.
--
-- Nearly every event is of a type every payment or nearly every one makes:
-- created and paid, and cancelled (a receipt left unpaid is closed at the
-- edge as cancelled, a transfer as expired). A page of such a type is found
-- densely by walking the log by id from `after` down (rows read: the page
-- over the type's share of the log, about 2x for `created`, 3x for `paid`,
-- 10x for `cancelled` and `expired` at a fifth of payments unpaid), and D1
-- bills a row read a thousandth of a row written. The other types are a few
-- in a hundred events or fewer, and a walk might read far to fill a page of
-- them: those keep their entry, and events/list reads them by this index
-- (src/events/log-database.ts INDEXED_TYPES names the same codes, and its
-- statement names this condition, so SQLite can use the index).
--
-- The condition is a chain of equalities, not an IN list: SQLite uses a
-- partial index for `type = ?` only when the bound value matches one term of
-- an OR (it prepares the statement again with the value). So the release
-- before this one, whose list by type binds the type, still reads a rare
-- type by this index and walks the log for a common one, as this release
-- does: rolling back meets the same reads.
--
-- contract: the full events_by_type goes, and an index of the same name over
-- the rare types takes its place; no running code names the index (the
-- release before and this one filter by `type` and let SQLite choose), so
-- neither reads a missing index. Rebuilding it reads the log once and writes
-- an entry for each rare event the log holds (a few in a hundred).

DROP INDEX events_by_type;

CREATE INDEX events_by_type ON events (type, id)
  WHERE type = 3 OR type = 4 OR type = 6 OR type = 9 OR type = 10 OR type = 12 OR type = 13;
