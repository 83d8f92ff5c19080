-- Fences (src/tid-index.ts, claimIndexFor): while TID_INDEX_SHARDS grows, a
-- create marks each earlier place of its tid with a row whose claim_token is
-- 'moved', so a Worker still on an earlier list never claims the tid there.
-- Retention deletes them after TID_RETENTION_DAYS, oldest first: this index
-- holds only fences, so that is a range scan of a few rows.
CREATE INDEX tid_index_fences ON tid_index (created_at) WHERE claim_token = 'moved';
