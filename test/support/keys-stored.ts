/**
 * Rule 11's kept answers as a test reads and sets them in the record row's
 * `keys` column: as stored (each entry's answer as text, or as parts of the
 * row's texts: src/record/key-texts.ts), and as the release before this one
 * stores them (every answer as text, the row stamped 8), made from what this
 * code stored, so that a test can show this code serving a record that
 * release wrote (a deploy over it). The object is evicted after a change, so
 * its next request reads the storage as it is.
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { keysFromColumn } from "../../src/record/key-texts";
import { receiptStub } from "../../src/record/receipt-object";

type Stored = { keys: string | null; answer: string | null; body: string; schema_version: number };

/** The record row's `keys` column as stored (each entry's answer as text or as parts), and its stamp. */
export async function storedKeys(id: string): Promise<{ entries: unknown[][]; stamp: number }> {
  return runInDurableObject(receiptStub(env, "receipt", id), (_instance, state) => {
    const row = state.storage.sql.exec<Stored>("SELECT keys, answer, body, schema_version FROM record").one();
    return { entries: row.keys ? (JSON.parse(row.keys) as unknown[][]) : [], stamp: row.schema_version };
  });
}

/** Every kept answer of the record stored as text, the row stamped 8, as the release before stores them. Answers how many were parts. */
export async function storeAnswersAsText(id: string): Promise<number> {
  const stub = receiptStub(env, "receipt", id);
  const parts = await runInDurableObject(stub, (_instance, state) => {
    const sql = state.storage.sql;
    const row = sql.exec<Stored>("SELECT keys, answer, body, schema_version FROM record").one();
    const count = (row.keys ? (JSON.parse(row.keys) as unknown[][]) : []).filter((entry) => Array.isArray(entry[6])).length;
    // The row's own write leaves updated_at and written_at as they are, as that release's write of them would.
    sql.exec("UPDATE record SET keys = ?, schema_version = 8", keysFromColumn(row.keys, row));
    return count;
  });
  await evictDurableObject(stub);
  return parts;
}
