-- Rule 10: the partner's requests to erase a user's personal data, processed
-- by the Cron Trigger (src/erasure.ts) in bounded steps. `cursor` is the
-- progress through the user's tid-index rows, per database (JSON: binding ->
-- the last tid done, or true when that database is done); `done_at` is set
-- once every database is done. A repeated request starts over.
CREATE TABLE erasures (
  user          TEXT PRIMARY KEY,
  requested_at  INTEGER NOT NULL,
  cursor        TEXT,
  done_at       INTEGER
) STRICT;

CREATE INDEX erasures_open ON erasures (requested_at) WHERE done_at IS NULL;
