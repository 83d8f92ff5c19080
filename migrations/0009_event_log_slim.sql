-- The event log keeps what events/list, events/resend, the sweep and retention
-- query, and no body: a record object keeps its events' bodies in its outbox
-- (record schema v7) for as long as the log lists them, and events/list,
-- events/resend and the sweep ask it (src/events/bodies.ts). A row is about a
-- tenth of what it was (docs/capacity.md measures it).
--
-- WITHOUT ROWID, keyed by the event id (evt_<ULID>: time-ordered, the list's
-- sort key): one b-tree instead of a table and its primary-key index. Type and
-- delivery status are small integers (src/events/log.ts EVENT_TYPE_CODES and
-- DELIVERY_STATUS_CODES: codes are never reused or renumbered). Kind, sequence,
-- created, owner and request_id are in the body; kind follows from the type.
--
-- Apply it with the deploy of the code that reads it: in between, the previous
-- version's drains, deliveries and sweeps fail on the new table and are retried
-- (the outboxes keep their events, the queue its messages); nothing is lost.
CREATE TABLE events_v9 (
  id               TEXT PRIMARY KEY,            -- evt_<ULID>
  record_id        TEXT NOT NULL,               -- the receipt's id, or the transfer's receipt_id
  type             INTEGER NOT NULL,            -- EVENT_TYPE_CODES
  status           INTEGER NOT NULL DEFAULT 0,  -- 0 pending, 1 delivered, 2 failed
  attempts         INTEGER NOT NULL DEFAULT 0,
  last_status      INTEGER,
  last_error       TEXT,
  delivered_at     INTEGER,
  next_attempt_at  INTEGER,                     -- pending: when the next attempt is due (ms)
  pending_since    INTEGER                      -- pending: when this round of delivery began (ms)
) STRICT, WITHOUT ROWID;

INSERT INTO events_v9 (id, record_id, type, status, attempts, last_status, last_error, delivered_at, next_attempt_at, pending_since)
SELECT id, record_id,
  CASE type
    WHEN 'receipt.created' THEN 1 WHEN 'receipt.paid' THEN 2 WHEN 'receipt.held' THEN 3
    WHEN 'receipt.awaiting_supplier' THEN 4 WHEN 'receipt.cancelled' THEN 5 WHEN 'receipt.otp_attempts_exhausted' THEN 6
    WHEN 'transfer.created' THEN 7 WHEN 'transfer.paid' THEN 8 WHEN 'transfer.cancelled' THEN 9
    WHEN 'transfer.otp_attempts_exhausted' THEN 10
  END,
  CASE delivery_status WHEN 'pending' THEN 0 WHEN 'delivered' THEN 1 ELSE 2 END,
  attempts, last_status, last_error, delivered_at, next_attempt_at, pending_since
FROM events;

-- Bodies the records do not keep: every event logged before this migration
-- (an older record deleted its outbox row once logged), and an event no record
-- produced (logged from a queue message). Read when present; deleted with
-- their event (the trigger below), so retention prunes them in the same step.
-- A rowid table: a body (~1.2 KB) would overflow a WITHOUT ROWID leaf.
CREATE TABLE event_bodies (
  id    TEXT PRIMARY KEY,
  body  TEXT NOT NULL
) STRICT;

INSERT INTO event_bodies (id, body) SELECT id, body FROM events;

DROP TABLE events;
ALTER TABLE events_v9 RENAME TO events;

-- events/list: newest first (id DESC) by record, type or delivery status. The
-- status index also serves retention's prune (status, id < cutoff) and the
-- sweep's two scans, which read the pending rows only (status = 0, oldest
-- first): the partial pending indexes of 0005 cost two index rows written per
-- event for a scan over the few events in flight.
CREATE INDEX events_by_record ON events (record_id, id);
CREATE INDEX events_by_type ON events (type, id);
CREATE INDEX events_by_status ON events (status, id);

CREATE TRIGGER event_bodies_pruned AFTER DELETE ON events
BEGIN
  DELETE FROM event_bodies WHERE id = old.id;
END;
