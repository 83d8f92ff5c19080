/**
 * Rule 14's list of the receipts whose fiscal data is still missing
 * (migrations/0004_fiscal_pending.sql), in the first database (DB), so a page
 * is one query whatever TID_INDEX_SHARDS names. Each receipt's record is the
 * source of truth and the list's only writer (src/record/fiscal.ts): it
 * writes its row when it becomes fiscal-pending, after each scheduled read
 * and when its refund's becomes missing, and deletes it once the fiscal data
 * shows. Both writes are idempotent, so a record that does not know whether
 * one landed (a crash, a failed answer) writes it again.
 */
import { receiptStub } from "../record-stub";

/** A fiscal-pending receipt as the list shows it (fiscal/pending's `receipts`). */
export interface FiscalListing {
  id: string;
  tid: string;
  amount: number;
  /** 4: the sale's fiscal data is missing; 21: the refund's. */
  state: number;
  /** When the payment or refund whose fiscal data is missing happened, as the gateway saw it (ms). */
  since: number;
  /** The scheduled reads done since (FISCAL_READS). */
  reads: number;
}

/** Writes (or rewrites) a receipt's row. Rows written: the row and its index entry when new; the row alone when only `reads` moved. */
export async function listFiscal(env: Env, listing: FiscalListing): Promise<void> {
  await env.DB.prepare(
    `INSERT INTO fiscal_pending (id, tid, amount, state, since, reads) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
     ON CONFLICT (id) DO UPDATE SET tid = excluded.tid, amount = excluded.amount, state = excluded.state, since = excluded.since, reads = excluded.reads`,
  )
    .bind(listing.id, listing.tid, listing.amount, listing.state, listing.since, listing.reads)
    .run();
}

/** Deletes a receipt's row, if it is there. */
export async function unlistFiscal(env: Env, id: string): Promise<void> {
  await env.DB.prepare("DELETE FROM fiscal_pending WHERE id = ?1").bind(id).run();
}

/**
 * Where a page that continues after receipt `after` starts: its place in the
 * list, or, once it left the list (its fiscal data showed meanwhile), the
 * place it had there, which its record keeps. Null when no record knows the
 * receipt as ever fiscal-pending.
 */
async function placeOf(env: Env, after: string): Promise<{ since: number; id: string } | null> {
  const row = await env.DB.prepare("SELECT since FROM fiscal_pending WHERE id = ?1").bind(after).first<{ since: number }>();
  if (row) return { since: row.since, id: after };
  const since = await receiptStub(env, "receipt", after).fiscalSince();
  return since === null ? null : { since, id: after };
}

/**
 * The receipts still fiscal-pending, oldest first (by when their payment or
 * refund happened, then by id), at most `limit`, after receipt `after` when
 * given; whether more follow. Null when `after` names no receipt that was
 * ever fiscal-pending. Rows read: the page's index entries and rows, one
 * more to know whether more follow, and the cursor's.
 */
export async function fiscalPendingPage(
  env: Env,
  query: { after?: string; limit: number },
): Promise<{ receipts: FiscalListing[]; has_more: boolean } | null> {
  const place = query.after === undefined ? null : await placeOf(env, query.after);
  if (query.after !== undefined && place === null) return null;
  const statement = place
    ? env.DB.prepare("SELECT id, tid, amount, state, since, reads FROM fiscal_pending WHERE (since, id) > (?1, ?2) ORDER BY since, id LIMIT ?3").bind(
        place.since,
        place.id,
        query.limit + 1,
      )
    : env.DB.prepare("SELECT id, tid, amount, state, since, reads FROM fiscal_pending ORDER BY since, id LIMIT ?1").bind(query.limit + 1);
  const { results } = await statement.all<FiscalListing>();
  return { receipts: results.slice(0, query.limit), has_more: results.length > query.limit };
}
