-- One row per tid ever claimed through the gateway. Receipts and transfers
-- share the space. No card data is stored here: the request is kept only as a
-- keyed fingerprint (HMAC-SHA-256), the response only for creates, which carry
-- no card number, expiry, OTP or token.
CREATE TABLE tid_index (
  tid          TEXT PRIMARY KEY,
  kind         TEXT NOT NULL CHECK (kind IN ('receipt', 'transfer')),
  owner        TEXT NOT NULL,
  fingerprint  TEXT NOT NULL,
  status       TEXT NOT NULL CHECK (status IN ('pending', 'completed')),
  claim_token  TEXT NOT NULL,
  receipt_id   TEXT,
  response     TEXT,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
) STRICT;

CREATE INDEX tid_index_receipt_id ON tid_index (receipt_id);
