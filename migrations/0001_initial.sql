-- The gateway's D1 schema. Every database TID_INDEX_SHARDS names gets it (one
-- schema everywhere, src/shards.ts); the erasure requests live in the first
-- (DB). A change to it is a new numbered file after this one: wrangler applies
-- each file once per database, in order (`npm run deploy`, `npm run dev`), and
-- test/integration/d1-schema.test.ts holds the result to what the code reads.
--
-- Nothing here holds card data: no card number, expiry, OTP or token. Event
-- bodies are kept by their records' Durable Objects, not here.

-- The tid index (src/tid-index.ts): one row per tid claimed through the
-- gateway, so a tid creates at most one receipt or transfer and a retried
-- create is recognised before it reaches the upstream. A row is small by
-- design (~220 B in pages for the partner's; docs/capacity.md): a replay is
-- answered by the record's Durable Object, which keeps its create's answer,
-- so the row keeps none.
--
-- owner: the tid's space (rule 9): `partner:partner` for the partner backend,
--   `user:<sub>` for a user; the key is (owner, tid).
-- upstream_tid: what the upstream holds when it is not the tid itself: a
--   user's UUID derived from TID_SECRET, the user and the tid, as its 16 raw
--   bytes; NULL for the partner's (the tid unchanged).
-- kind: 0 receipt, 1 transfer. status: 0 pending (a create's claim, its
--   write-ahead note), 1 completed.
-- fingerprint: the request's keyed fingerprint (HMAC-SHA-256 truncated to 128
--   bits, 16 raw bytes): an identical retry is told from another body without
--   keeping the body.
-- claim_token: the pending claim's token, NULL once completed; 'moved' marks a
--   fence (src/tid-index.ts claimIndexFor: while TID_INDEX_SHARDS grows, a
--   create fences each earlier place of its tid).
-- receipt_id: the record the tid created, once completed.
-- created_at: when the tid was first claimed (ms). updated_at: when the claim
--   was taken or taken over (its lease counts from it), and once completed
--   when the create was answered (the replay and retention windows count
--   from it).
CREATE TABLE tid_index (
  owner        TEXT NOT NULL,
  tid          TEXT NOT NULL,
  upstream_tid BLOB,
  kind         INTEGER NOT NULL CHECK (kind IN (0, 1)),
  status       INTEGER NOT NULL CHECK (status IN (0, 1)),
  fingerprint  BLOB NOT NULL,
  claim_token  TEXT,
  receipt_id   TEXT,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL,
  PRIMARY KEY (owner, tid)
) STRICT;

-- A user's upstream tid is unique, as it is at the upstream: a claim whose
-- derived tid another row holds is refused here, not upstream. Partial: the
-- partner's rows hold NULL and cost no index entry.
CREATE UNIQUE INDEX tid_index_upstream_tid ON tid_index (upstream_tid) WHERE upstream_tid IS NOT NULL;
-- Retention's scan (src/retention.ts): completed rows, oldest answer first, so
-- a run reads only the rows it deletes; a pending claim is never in it (its
-- lease decides what becomes of it).
CREATE INDEX tid_index_retention ON tid_index (updated_at) WHERE status = 1;
-- Retention deletes fences TID_RETENTION_DAYS after they were made, oldest
-- first: this index holds only fences, so that is a range scan of a few rows.
CREATE INDEX tid_index_fences ON tid_index (created_at) WHERE claim_token = 'moved';

-- The event log (src/events/log.ts, log-database.ts): one row per event a
-- record published, written by the record's drain before the event is
-- queued, and updated by the queue consumer, the sweep and events/resend. It
-- keeps what events/list, events/resend, the sweep and retention query, and
-- no body: the record keeps each event's body in its outbox for as long as
-- the log lists the event (src/events/bodies.ts), so a row is ~280 B
-- (docs/capacity.md).
--
-- WITHOUT ROWID, keyed by the event id (evt_<ULID>: time-ordered, the list's
-- sort key, and retention's clock): one b-tree instead of a table and its
-- primary-key index. Type and status are small integers (EVENT_TYPE_CODES and
-- DELIVERY_STATUS_CODES in src/events/log-database.ts: a code is never reused
-- or renumbered); kind follows from the type, and sequence, created, owner
-- and request_id are in the body.
CREATE TABLE events (
  id               TEXT PRIMARY KEY,            -- evt_<ULID>
  record_id        TEXT NOT NULL,               -- the receipt's id, or the transfer's receipt_id
  type             INTEGER NOT NULL,            -- EVENT_TYPE_CODES
  status           INTEGER NOT NULL DEFAULT 0,  -- 0 pending, 1 delivered, 2 failed
  attempts         INTEGER NOT NULL DEFAULT 0,  -- delivery attempts, across resends
  last_status      INTEGER,                     -- the receiver's last HTTP status; NULL: none (timeout, network)
  last_error       TEXT,
  delivered_at     INTEGER,                     -- ms; NULL until a 2xx
  next_attempt_at  INTEGER,                     -- pending: when the next attempt is due (ms); the sweep queues again one long overdue
  pending_since    INTEGER                      -- pending: when this round of delivery began (ms); the retry horizon counts from it
) STRICT, WITHOUT ROWID;

-- events/list, newest first (id DESC), by record, by type and by delivery
-- status. The status index also serves retention's prune (status, id <
-- cutoff: an id begins with its creation time) and the sweep's two scans,
-- which read the pending rows only (status = 0, oldest first).
CREATE INDEX events_by_record ON events (record_id, id);
CREATE INDEX events_by_type ON events (type, id);
CREATE INDEX events_by_status ON events (status, id);

-- Rule 10: the partner's requests to erase a user's personal data, carried
-- out by the Cron Trigger (src/erasure.ts) in bounded steps. `cursor` is the
-- progress through the user's tid-index rows, per database (JSON: binding ->
-- the last tid done, or true when that database is done); `done_at` is set
-- once every database is done. A repeated request starts over.
CREATE TABLE erasures (
  user          TEXT PRIMARY KEY,
  requested_at  INTEGER NOT NULL,
  cursor        TEXT,
  done_at       INTEGER
) STRICT;

-- The cron's scan: the open requests, oldest first.
CREATE INDEX erasures_open ON erasures (requested_at) WHERE done_at IS NULL;
