-- The event log: one row per event a receipt or transfer produced, written by
-- publishEvents (src/events/log.ts) before the event is queued, and updated by
-- the delivery consumer. `body` is the event exactly as it is signed and
-- POSTed: the Receipt or Transfer receipt as the API returns it, so it holds
-- masked card numbers only, never a card number, expiry, OTP or token.
CREATE TABLE events (
  id               TEXT PRIMARY KEY,            -- evt_<ULID>: time-ordered, the list's sort key
  record_id        TEXT NOT NULL,               -- the receipt's id, or the transfer's receipt_id
  kind             TEXT NOT NULL CHECK (kind IN ('receipt', 'transfer')),
  type             TEXT NOT NULL,
  sequence         INTEGER NOT NULL,            -- per record: 1, 2, ...
  created          INTEGER NOT NULL,            -- ms since the epoch
  owner            TEXT NOT NULL,
  request_id       TEXT NOT NULL,
  body             TEXT NOT NULL,
  delivery_status  TEXT NOT NULL DEFAULT 'pending' CHECK (delivery_status IN ('pending', 'delivered', 'failed')),
  attempts         INTEGER NOT NULL DEFAULT 0,  -- delivery attempts, across resends
  last_status      INTEGER,                     -- the receiver's last HTTP status; NULL: none (timeout, network)
  last_error       TEXT,
  delivered_at     INTEGER                      -- ms; NULL until a 2xx
) STRICT;

-- events/list: newest first (id DESC), optionally by record, type or delivery status.
CREATE INDEX events_by_record ON events (record_id, id);
CREATE INDEX events_by_type ON events (type, id);
CREATE INDEX events_by_delivery ON events (delivery_status, id);
