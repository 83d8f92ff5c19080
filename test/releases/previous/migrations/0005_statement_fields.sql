-- Rule 16: the daily statement is built from the event log (src/statements/),
-- and the log keeps no bodies (their records do). Reading 10M bodies from
-- their records for a day's statement would be 10M object requests, so the
-- fields a statement line needs are written with the event's row, by the
-- same INSERT (no row more): NULL for an event that is no line (created,
-- awaiting the supplier, fiscalized, a receipt's exhausted guesses).
--
-- change: 1 paid, 2 held, 3 cancelled, 4 refunded, 5 expired, 6 closed at the
--   edge (STATEMENT_CHANGES in src/statements/lines.ts; a code is never reused).
-- amount, commission: tiyin, as the event's object shows them (a transfer's
--   amount: what the receiver gets). merchant: the receipt's merchant id.
-- tid: as its owner chose it (never the derived upstream tid of a user's).
-- owner: "partner" or the user's sub, as the event shows it.
-- state: the object's state in the event. fiscal_sign: the receipt's ofd's.
--
-- Additive: the release before this one inserts rows without them, and the
-- statement reads those rows' bodies from their records instead (the first
-- statement after this deploy reads the whole previous day that way).
-- Nothing here is card data or a user's personal value (phone, account).
ALTER TABLE events ADD COLUMN change INTEGER;
ALTER TABLE events ADD COLUMN amount INTEGER;
ALTER TABLE events ADD COLUMN commission INTEGER;
ALTER TABLE events ADD COLUMN merchant INTEGER;
ALTER TABLE events ADD COLUMN tid TEXT;
ALTER TABLE events ADD COLUMN owner TEXT;
ALTER TABLE events ADD COLUMN state INTEGER;
ALTER TABLE events ADD COLUMN fiscal_sign TEXT;
