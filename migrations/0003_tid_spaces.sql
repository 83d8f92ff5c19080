-- Rule 9: a tid is unique within its caller's space (the partner's, or one
-- user's), not across the deployment. The key becomes (owner, tid): `owner`
-- is `partner:partner` for the partner backend (every server key shares it)
-- and `user:<sub>` for a user. `upstream_tid` is what the upstream holds: the
-- partner's tid unchanged, or for a user a UUID derived from TID_SECRET, the
-- user and the tid, which no caller can compute; it is unique too, as it is
-- at the upstream.
CREATE TABLE tid_index_next (
  owner        TEXT NOT NULL,
  tid          TEXT NOT NULL,
  upstream_tid TEXT NOT NULL,
  kind         TEXT NOT NULL CHECK (kind IN ('receipt', 'transfer')),
  fingerprint  TEXT NOT NULL,
  status       TEXT NOT NULL CHECK (status IN ('pending', 'completed')),
  claim_token  TEXT NOT NULL,
  receipt_id   TEXT,
  response     TEXT,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL,
  PRIMARY KEY (owner, tid)
) STRICT;

-- Rows of the first gateway were sent upstream as they were.
INSERT INTO tid_index_next (owner, tid, upstream_tid, kind, fingerprint, status, claim_token, receipt_id, response, created_at, updated_at)
  SELECT owner, tid, tid, kind, fingerprint, status, claim_token, receipt_id, response, created_at, updated_at FROM tid_index;

DROP TABLE tid_index;
ALTER TABLE tid_index_next RENAME TO tid_index;
CREATE UNIQUE INDEX tid_index_upstream_tid ON tid_index (upstream_tid);
CREATE INDEX tid_index_receipt_id ON tid_index (receipt_id);
