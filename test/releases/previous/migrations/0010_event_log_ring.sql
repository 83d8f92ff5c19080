-- The event log as a ring of slots (src/d1/ring.ts): `events_0` .. `events_7`,
-- each of the columns of `events` in its order, WITHOUT ROWID and keyed by the
-- event id, with the same two partial indexes (events_watched's and the rare
-- types' events_by_type), named after its table. The slot an event is logged
-- in is the one of its logging time; the cron empties a slot whole once every
-- event it took is past the delivered events' window (src/events/log-database.ts
-- emptyEventSlot): it copies the events still within their window (undelivered
-- ones, kept longer) into the slot written now, drops the slot, and makes it
-- again with the statements below (eventTableDefinition, which
-- test/unit/event-ring.test.ts holds equal to this file). D1 bills a row written
-- for each row a DELETE removes, and none for a dropped table: retention of a
-- delivered event costs no row.
--
-- Expand only: the slots start empty, `events` keeps every row and its own
-- retention (the walk behind the 'prune' cursor, the ranges of events_watched)
-- until it is empty. The release that brings this file reads and changes every
-- table and still logs into `events`; the release after it logs into the slots.
-- The release before this file never reads a slot: it runs against it only
-- while the slots are empty.

CREATE TABLE events_0 (
  id               TEXT PRIMARY KEY,
  record_id        TEXT NOT NULL,
  type             INTEGER NOT NULL,
  status           INTEGER NOT NULL DEFAULT 0,
  attempts         INTEGER NOT NULL DEFAULT 0,
  last_status      INTEGER,
  last_error       TEXT,
  delivered_at     INTEGER,
  next_attempt_at  INTEGER,
  pending_since    INTEGER,
  watched          INTEGER CHECK (watched = 1),
  change           INTEGER,
  amount           INTEGER,
  commission       INTEGER,
  merchant         INTEGER,
  tid              TEXT,
  owner            TEXT,
  state            INTEGER,
  fiscal_sign      TEXT
) STRICT, WITHOUT ROWID;
CREATE INDEX events_0_watched ON events_0 (status, id) WHERE watched = 1;
CREATE INDEX events_0_by_type ON events_0 (type, id)
  WHERE type = 3 OR type = 4 OR type = 6 OR type = 9 OR type = 10 OR type = 12 OR type = 13;

CREATE TABLE events_1 (
  id               TEXT PRIMARY KEY,
  record_id        TEXT NOT NULL,
  type             INTEGER NOT NULL,
  status           INTEGER NOT NULL DEFAULT 0,
  attempts         INTEGER NOT NULL DEFAULT 0,
  last_status      INTEGER,
  last_error       TEXT,
  delivered_at     INTEGER,
  next_attempt_at  INTEGER,
  pending_since    INTEGER,
  watched          INTEGER CHECK (watched = 1),
  change           INTEGER,
  amount           INTEGER,
  commission       INTEGER,
  merchant         INTEGER,
  tid              TEXT,
  owner            TEXT,
  state            INTEGER,
  fiscal_sign      TEXT
) STRICT, WITHOUT ROWID;
CREATE INDEX events_1_watched ON events_1 (status, id) WHERE watched = 1;
CREATE INDEX events_1_by_type ON events_1 (type, id)
  WHERE type = 3 OR type = 4 OR type = 6 OR type = 9 OR type = 10 OR type = 12 OR type = 13;

CREATE TABLE events_2 (
  id               TEXT PRIMARY KEY,
  record_id        TEXT NOT NULL,
  type             INTEGER NOT NULL,
  status           INTEGER NOT NULL DEFAULT 0,
  attempts         INTEGER NOT NULL DEFAULT 0,
  last_status      INTEGER,
  last_error       TEXT,
  delivered_at     INTEGER,
  next_attempt_at  INTEGER,
  pending_since    INTEGER,
  watched          INTEGER CHECK (watched = 1),
  change           INTEGER,
  amount           INTEGER,
  commission       INTEGER,
  merchant         INTEGER,
  tid              TEXT,
  owner            TEXT,
  state            INTEGER,
  fiscal_sign      TEXT
) STRICT, WITHOUT ROWID;
CREATE INDEX events_2_watched ON events_2 (status, id) WHERE watched = 1;
CREATE INDEX events_2_by_type ON events_2 (type, id)
  WHERE type = 3 OR type = 4 OR type = 6 OR type = 9 OR type = 10 OR type = 12 OR type = 13;

CREATE TABLE events_3 (
  id               TEXT PRIMARY KEY,
  record_id        TEXT NOT NULL,
  type             INTEGER NOT NULL,
  status           INTEGER NOT NULL DEFAULT 0,
  attempts         INTEGER NOT NULL DEFAULT 0,
  last_status      INTEGER,
  last_error       TEXT,
  delivered_at     INTEGER,
  next_attempt_at  INTEGER,
  pending_since    INTEGER,
  watched          INTEGER CHECK (watched = 1),
  change           INTEGER,
  amount           INTEGER,
  commission       INTEGER,
  merchant         INTEGER,
  tid              TEXT,
  owner            TEXT,
  state            INTEGER,
  fiscal_sign      TEXT
) STRICT, WITHOUT ROWID;
CREATE INDEX events_3_watched ON events_3 (status, id) WHERE watched = 1;
CREATE INDEX events_3_by_type ON events_3 (type, id)
  WHERE type = 3 OR type = 4 OR type = 6 OR type = 9 OR type = 10 OR type = 12 OR type = 13;

CREATE TABLE events_4 (
  id               TEXT PRIMARY KEY,
  record_id        TEXT NOT NULL,
  type             INTEGER NOT NULL,
  status           INTEGER NOT NULL DEFAULT 0,
  attempts         INTEGER NOT NULL DEFAULT 0,
  last_status      INTEGER,
  last_error       TEXT,
  delivered_at     INTEGER,
  next_attempt_at  INTEGER,
  pending_since    INTEGER,
  watched          INTEGER CHECK (watched = 1),
  change           INTEGER,
  amount           INTEGER,
  commission       INTEGER,
  merchant         INTEGER,
  tid              TEXT,
  owner            TEXT,
  state            INTEGER,
  fiscal_sign      TEXT
) STRICT, WITHOUT ROWID;
CREATE INDEX events_4_watched ON events_4 (status, id) WHERE watched = 1;
CREATE INDEX events_4_by_type ON events_4 (type, id)
  WHERE type = 3 OR type = 4 OR type = 6 OR type = 9 OR type = 10 OR type = 12 OR type = 13;

CREATE TABLE events_5 (
  id               TEXT PRIMARY KEY,
  record_id        TEXT NOT NULL,
  type             INTEGER NOT NULL,
  status           INTEGER NOT NULL DEFAULT 0,
  attempts         INTEGER NOT NULL DEFAULT 0,
  last_status      INTEGER,
  last_error       TEXT,
  delivered_at     INTEGER,
  next_attempt_at  INTEGER,
  pending_since    INTEGER,
  watched          INTEGER CHECK (watched = 1),
  change           INTEGER,
  amount           INTEGER,
  commission       INTEGER,
  merchant         INTEGER,
  tid              TEXT,
  owner            TEXT,
  state            INTEGER,
  fiscal_sign      TEXT
) STRICT, WITHOUT ROWID;
CREATE INDEX events_5_watched ON events_5 (status, id) WHERE watched = 1;
CREATE INDEX events_5_by_type ON events_5 (type, id)
  WHERE type = 3 OR type = 4 OR type = 6 OR type = 9 OR type = 10 OR type = 12 OR type = 13;

CREATE TABLE events_6 (
  id               TEXT PRIMARY KEY,
  record_id        TEXT NOT NULL,
  type             INTEGER NOT NULL,
  status           INTEGER NOT NULL DEFAULT 0,
  attempts         INTEGER NOT NULL DEFAULT 0,
  last_status      INTEGER,
  last_error       TEXT,
  delivered_at     INTEGER,
  next_attempt_at  INTEGER,
  pending_since    INTEGER,
  watched          INTEGER CHECK (watched = 1),
  change           INTEGER,
  amount           INTEGER,
  commission       INTEGER,
  merchant         INTEGER,
  tid              TEXT,
  owner            TEXT,
  state            INTEGER,
  fiscal_sign      TEXT
) STRICT, WITHOUT ROWID;
CREATE INDEX events_6_watched ON events_6 (status, id) WHERE watched = 1;
CREATE INDEX events_6_by_type ON events_6 (type, id)
  WHERE type = 3 OR type = 4 OR type = 6 OR type = 9 OR type = 10 OR type = 12 OR type = 13;

CREATE TABLE events_7 (
  id               TEXT PRIMARY KEY,
  record_id        TEXT NOT NULL,
  type             INTEGER NOT NULL,
  status           INTEGER NOT NULL DEFAULT 0,
  attempts         INTEGER NOT NULL DEFAULT 0,
  last_status      INTEGER,
  last_error       TEXT,
  delivered_at     INTEGER,
  next_attempt_at  INTEGER,
  pending_since    INTEGER,
  watched          INTEGER CHECK (watched = 1),
  change           INTEGER,
  amount           INTEGER,
  commission       INTEGER,
  merchant         INTEGER,
  tid              TEXT,
  owner            TEXT,
  state            INTEGER,
  fiscal_sign      TEXT
) STRICT, WITHOUT ROWID;
CREATE INDEX events_7_watched ON events_7 (status, id) WHERE watched = 1;
CREATE INDEX events_7_by_type ON events_7 (type, id)
  WHERE type = 3 OR type = 4 OR type = 6 OR type = 9 OR type = 10 OR type = 12 OR type = 13;
