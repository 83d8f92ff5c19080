/**
 * Rule 11's keys as the release after this one keeps them: in the record's
 * row (src/record/keys.ts KeyEntry, the `keys` column), with no
 * `idempotency` table. Made from what this code stored, so that a test can
 * show this code serving a record that release wrote (a rollback to it):
 * every key moved from the table into the row, and the table dropped; or,
 * with `openInTable`, the table left holding each key open (no answer yet),
 * as a key opened by one release and answered by the other leaves it. The
 * object is evicted, so its next request reads the storage as it is.
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { receiptStub } from "../../src/record/receipt-object";

export async function moveKeysToRow(id: string, options: { openInTable?: boolean } = {}): Promise<number> {
  const stub = receiptStub(env, "receipt", id);
  const moved = await runInDurableObject(stub, (_instance, state) => {
    const sql = state.storage.sql;
    const { keys, count } = sql
      .exec<{ keys: string; count: number }>(
        `SELECT json_group_array(json_array(caller, operation, key, fingerprint, request_id, status, answer, headers, created_at)) AS keys,
                count(*) AS count FROM idempotency`,
      )
      .one();
    // The row's own write leaves updated_at and written_at as they are: this release's layout, not one before it.
    sql.exec("UPDATE record SET keys = ?", keys);
    if (options.openInTable) sql.exec("UPDATE idempotency SET status = NULL, answer = NULL, headers = NULL");
    else sql.exec("DROP TABLE idempotency");
    return count;
  });
  await evictDurableObject(stub);
  return moved;
}
