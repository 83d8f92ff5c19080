-- Each delivery attempt of each event (src/events/log-database.ts), so that
-- the back office shows every attempt of an event, not just the last: when it
-- was made, the receiver's HTTP status (NULL: no answer, a timeout or a
-- network failure), whether it was a 2xx, and the receiver's answer trimmed
-- to 200 characters and redacted (card numbers and any run of 12 digits or
-- more masked, credentials removed), or why no answer came.
--
-- A row is written by the same batch that updates the event's row in
-- `events`, in the database that holds the event; retention deletes the
-- attempts of an event once the longer of the two event windows has passed
-- since its creation (event ids begin with their creation time).
CREATE TABLE event_attempts (
  event_id TEXT NOT NULL,      -- evt_<ULID>
  at       INTEGER NOT NULL,   -- ms
  seq      INTEGER NOT NULL,   -- the event's attempt count after it (1: its first)
  status   INTEGER,            -- the receiver's HTTP status; NULL: none came
  ok       INTEGER NOT NULL,   -- 1: a 2xx
  answer   TEXT NOT NULL,      -- trimmed and redacted
  PRIMARY KEY (event_id, at, seq)
) STRICT, WITHOUT ROWID;
