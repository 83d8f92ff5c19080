-- The tid index as a ring of slots (src/d1/ring.ts, src/tids/tid-index.ts):
-- tid_index_0 .. tid_index_7, each taking the claims of one period of
-- TID_RETENTION_DAYS / 6, and emptied whole by retention (DROP TABLE, then
-- these same statements, from tidSlotSchema in src/tids/tid-index.ts, which
-- test/integration/d1-schema.test.ts holds this file to) once every row it
-- took is past its window; the rows still within it are moved to the slot
-- written then, in the same batch.
--
-- WITHOUT ROWID, keyed by (owner, tid): a claim writes one b-tree entry
-- (D1 bills each index entry a statement writes as a row written), where
-- tid_index writes its row and its primary key's entry; a dropped table
-- writes no row, where retention's DELETE writes one a row. So a tid costs
-- its claim and its completion, 2 rows, where it cost 4.
--
-- The same columns as tid_index (0001_initial.sql). Of its indexes, only the
-- one a claim needs: a user's upstream tid is unique (partial, so a partner's
-- row, which holds NULL, costs no entry). The ring replaces the walk and
-- tid_index_late; fences are kept while within their window by the move and
-- go with their slot, so they need no index of their own.
--
-- contract: this release reads, changes and empties the slots and still
-- writes new claims to tid_index; the next writes them here
-- (docs/production.md, "Expand, then contract"). tid_index is pruned as
-- before until it is empty.

CREATE TABLE tid_index_0 (
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
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX tid_index_0_upstream_tid ON tid_index_0 (upstream_tid) WHERE upstream_tid IS NOT NULL;

CREATE TABLE tid_index_1 (
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
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX tid_index_1_upstream_tid ON tid_index_1 (upstream_tid) WHERE upstream_tid IS NOT NULL;

CREATE TABLE tid_index_2 (
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
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX tid_index_2_upstream_tid ON tid_index_2 (upstream_tid) WHERE upstream_tid IS NOT NULL;

CREATE TABLE tid_index_3 (
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
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX tid_index_3_upstream_tid ON tid_index_3 (upstream_tid) WHERE upstream_tid IS NOT NULL;

CREATE TABLE tid_index_4 (
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
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX tid_index_4_upstream_tid ON tid_index_4 (upstream_tid) WHERE upstream_tid IS NOT NULL;

CREATE TABLE tid_index_5 (
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
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX tid_index_5_upstream_tid ON tid_index_5 (upstream_tid) WHERE upstream_tid IS NOT NULL;

CREATE TABLE tid_index_6 (
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
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX tid_index_6_upstream_tid ON tid_index_6 (upstream_tid) WHERE upstream_tid IS NOT NULL;

CREATE TABLE tid_index_7 (
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
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX tid_index_7_upstream_tid ON tid_index_7 (upstream_tid) WHERE upstream_tid IS NOT NULL;
