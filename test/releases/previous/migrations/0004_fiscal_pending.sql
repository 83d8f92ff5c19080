-- Rule 14: the receipts whose fiscal receipt is still missing (src/fiscal-list.ts).
-- A receipt paid whose `ofd` shows no fiscal sign or QR address, or a paid
-- receipt cancelled whose refund shows no fiscal data, is fiscal-pending: its
-- record's Durable Object, the source of truth, writes its row here when it
-- becomes so, updates it after each of its scheduled reads, and deletes it
-- once the fiscal data shows; a write that fails is retried by the record's
-- alarm until it lands (src/record/fiscal.ts), and the record is not deleted
-- (rule 10) while it owes one. POST /api/v1/gateway/fiscal/pending lists the
-- rows, oldest first.
--
-- The rows live in the first database (DB) alone, beside the erasure
-- requests, so the list is one query however many databases TID_INDEX_SHARDS
-- names; every database gets the table (one schema everywhere). Only the
-- receipts still pending are here: a few percent of a day's payments at most,
-- a row each (docs/capacity.md). Nothing here is card data or personal data.
--
-- WITHOUT ROWID, keyed by the receipt's id (a record writes and deletes its
-- own row by it): one b-tree, and the list's order in its index.
CREATE TABLE fiscal_pending (
  id      TEXT PRIMARY KEY,   -- the receipt's id
  tid     TEXT NOT NULL,      -- its tid as its owner chose it (what answers show)
  amount  INTEGER NOT NULL,   -- tiyin
  state   INTEGER NOT NULL,   -- 4: the sale's fiscal data is missing; 21: the refund's
  since   INTEGER NOT NULL,   -- ms: the payment or refund whose fiscal data is missing, as the gateway saw it
  reads   INTEGER NOT NULL    -- the scheduled reads done since (FISCAL_READS)
) STRICT, WITHOUT ROWID;

-- The list, oldest first, paged by (since, id): a page reads the rows it answers.
CREATE INDEX fiscal_pending_oldest ON fiscal_pending (since, id);
