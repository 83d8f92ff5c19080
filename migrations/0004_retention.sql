-- Retention (src/retention.ts, run by the Cron Trigger): each batch is a range
-- scan of one of these indexes, oldest first, so a run costs what it removes
-- and never reads the rows it keeps. A completed row is in exactly one of the
-- two (its answer kept, or compacted) and a pending claim in neither:
-- retention never touches a pending claim (its lease does).
--
-- Completed rows whose answer is still kept, by when it was given: the
-- compaction's scan.
CREATE INDEX tid_index_answer_kept ON tid_index (updated_at) WHERE status = 'completed' AND response IS NOT NULL;
-- Compacted rows, by when their answer was given: the deletion's scan. Only a
-- compacted row is deleted, so a row always goes answer kept -> compacted ->
-- deleted, whatever the windows and however late the cron runs.
CREATE INDEX tid_index_compacted ON tid_index (updated_at) WHERE status = 'completed' AND response IS NULL;
-- The event log needs no new index: events_by_delivery (delivery_status, id)
-- already orders each status's events by id, and an id (evt_<ULID>) begins
-- with its creation time.
