/**
 * Rule 11's kept answers as schema 9's code stores them: each answer in the
 * record row's `keys` column as parts of the row's texts (its create's answer
 * and its body: src/record/event-texts.ts), the row stamped 9. Made from what
 * this code stored, so that a test can show this code reading that form (a
 * rollback to it) and what it writes back. The object is evicted, so its next
 * request reads the storage as it is. Answers how many answers are stored as
 * parts.
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { bodyEncoder } from "../../src/record/event-texts";
import { receiptStub } from "../../src/record/receipt-object";

export async function storeAnswersAsParts(id: string): Promise<number> {
  const stub = receiptStub(env, "receipt", id);
  const encoded = await runInDurableObject(stub, (_instance, state) => {
    const sql = state.storage.sql;
    const row = sql.exec<{ keys: string | null; answer: string | null; body: string }>("SELECT keys, answer, body FROM record").one();
    const encode = bodyEncoder([row.answer, row.body]);
    let count = 0;
    const entries = (row.keys ? (JSON.parse(row.keys) as unknown[][]) : []).map((entry) => {
      const answer = entry[6];
      if (typeof answer !== "string") return entry;
      const parts = encode(answer);
      if (parts.every((part) => typeof part === "string")) return entry;
      count++;
      return entry.map((field, i) => (i === 6 ? parts : field));
    });
    // The row's own write leaves updated_at and written_at as they are, as that code's write of them would.
    sql.exec("UPDATE record SET keys = ?, schema_version = 9", JSON.stringify(entries));
    return count;
  });
  await evictDurableObject(stub);
  return encoded;
}

/** The record row's `keys` column as stored (each entry's answer as text or as parts), and its stamp. */
export async function storedKeys(id: string): Promise<{ entries: unknown[][]; stamp: number }> {
  return runInDurableObject(receiptStub(env, "receipt", id), (_instance, state) => {
    const row = state.storage.sql.exec<{ keys: string | null; schema_version: number }>("SELECT keys, schema_version FROM record").one();
    return { entries: row.keys ? (JSON.parse(row.keys) as unknown[][]) : [], stamp: row.schema_version };
  });
}
