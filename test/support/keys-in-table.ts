/**
 * Rule 11's keys as the release before this one keeps them: in the record's
 * own `idempotency` table (its schema below, as that release makes it), the
 * row's `keys` column empty. Made from what this code stored, so that a test
 * can show this code serving a record that release keyed (a deploy over it):
 * every key moved from the row into the table; or, with `answerInRow`, the
 * row left as it is and the table holding each key open (no answer yet), as
 * a key opened by that release and answered by this one leaves them. The
 * object is evicted, so its next request reads the storage as it is.
 * Answers how many keys the row held: this code keeps them there.
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { keysFromColumn } from "../../src/record/key-texts";
import { receiptStub } from "../../src/record/receipt-object";

/** The table as the release before this one makes it, on a record's first key. */
const KEYS_TABLE = `
  CREATE TABLE IF NOT EXISTS idempotency (
    caller TEXT NOT NULL, operation TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, request_id TEXT NOT NULL,
    status INTEGER, answer TEXT, headers TEXT, created_at INTEGER NOT NULL,
    PRIMARY KEY (caller, operation, key)) WITHOUT ROWID;`;

export async function moveKeysToTable(id: string, options: { answerInRow?: boolean } = {}): Promise<number> {
  const stub = receiptStub(env, "receipt", id);
  const moved = await runInDurableObject(stub, (_instance, state) => {
    const sql = state.storage.sql;
    const row = sql.exec<{ keys: string | null; answer: string | null; body: string }>("SELECT keys, answer, body FROM record").one();
    // That release keeps each answer as its text: the parts this code may store, given back whole.
    const keys = keysFromColumn(row.keys, row);
    const entries = keys ? (JSON.parse(keys) as unknown[][]) : [];
    sql.exec(KEYS_TABLE);
    for (const [caller, operation, key, fingerprint, requestId, status, answer, headers, createdAt] of entries) {
      const open = options.answerInRow === true;
      sql.exec(
        "INSERT INTO idempotency (caller, operation, key, fingerprint, request_id, status, answer, headers, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ...([
          caller,
          operation,
          key,
          fingerprint,
          requestId,
          open ? null : status,
          open ? null : answer,
          open ? null : headers,
          createdAt,
        ] as SqlStorageValue[]),
      );
    }
    // The row's own write leaves updated_at and written_at as they are: the layout as this code left it.
    if (!options.answerInRow) sql.exec("UPDATE record SET keys = NULL");
    return entries.length;
  });
  await evictDurableObject(stub);
  return moved;
}
