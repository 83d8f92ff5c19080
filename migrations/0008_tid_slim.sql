-- A tid row small by design, and what retention removes frees its pages
-- (rule 10: every stored byte has an end). Every row is copied; nothing is lost.
--
-- - No `response`: a replay is answered by the record's Durable Object, which
--   keeps its create's answer (src/record/store.ts, `answer`). The answers of
--   rows completed before this migration move to tid_answers_legacy below.
-- - fingerprint: 16 raw bytes (HMAC-SHA-256 truncated to 128 bits; the first
--   half of the 64 hex digits kept so far, so earlier fingerprints still match).
-- - upstream_tid: NULL when it is the tid itself (the partner's); a user's
--   derived UUID as its 16 raw bytes.
-- - kind: 0 receipt, 1 transfer; status: 0 pending, 1 completed.
-- - claim_token: NULL once completed (only a pending claim needs it); a fence
--   keeps 'moved' (src/tid-index.ts, claimIndexFor).
-- - Indexes: the key (owner, tid); the unique upstream tid of user rows (a
--   partial index: partner rows hold NULL); one retention index, completed rows
--   by when they were answered; the fences' own (0006). The receipt-id index
--   goes: nothing reads a row by its record id any more (the console asks the
--   record's object).
CREATE TABLE tid_index_v8 (
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

-- Answers kept so far, for the replays still due within TID_REPLAY_DAYS: read
-- only when the record's object holds no answer of its own, deleted by
-- retention once past the replay window (src/tid-index.ts, legacyAnswer and
-- deleteLegacyAnswers), erased with the user's data (src/erasure.ts). Empty
-- on a deployment that starts with this migration.
CREATE TABLE tid_answers_legacy (
  owner        TEXT NOT NULL,
  tid          TEXT NOT NULL,
  response     TEXT NOT NULL,
  answered_at  INTEGER NOT NULL,
  PRIMARY KEY (owner, tid)
) STRICT;

INSERT INTO tid_answers_legacy (owner, tid, response, answered_at)
  SELECT owner, tid, response, updated_at FROM tid_index WHERE status = 'completed' AND response IS NOT NULL;

INSERT INTO tid_index_v8 (owner, tid, upstream_tid, kind, status, fingerprint, claim_token, receipt_id, created_at, updated_at)
  SELECT owner, tid,
         CASE WHEN upstream_tid = tid THEN NULL ELSE unhex(replace(upstream_tid, '-', '')) END,
         CASE kind WHEN 'receipt' THEN 0 ELSE 1 END,
         CASE status WHEN 'completed' THEN 1 ELSE 0 END,
         unhex(substr(fingerprint, 1, 32)),
         CASE WHEN status = 'completed' THEN NULL ELSE claim_token END,
         receipt_id, created_at, updated_at
  FROM tid_index;

DROP TABLE tid_index;
ALTER TABLE tid_index_v8 RENAME TO tid_index;
CREATE UNIQUE INDEX tid_index_upstream_tid ON tid_index (upstream_tid) WHERE upstream_tid IS NOT NULL;
-- Retention's one scan: completed rows, oldest answer first; a pending claim is never in it.
CREATE INDEX tid_index_retention ON tid_index (updated_at) WHERE status = 1;
CREATE INDEX tid_index_fences ON tid_index (created_at) WHERE claim_token = 'moved';
CREATE INDEX tid_answers_legacy_by_time ON tid_answers_legacy (answered_at);
