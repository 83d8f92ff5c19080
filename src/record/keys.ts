/**
 * Rule 11: the Idempotency-Keys a record's callers used, with what each got.
 * A key is its caller's own, for one operation on this record: the row's key
 * is (caller, operation, key). It stores the request's keyed fingerprint
 * (src/tids/tid-index.ts fingerprint: card numbers, expiries, OTPs and tokens are
 * never stored) and, once the outcome is known, the answer exactly as it was
 * sent: its status, the JSON text of its body and its headers. While the
 * first request's outcome is unknown the answer is empty, and the money move
 * settles it from what the upstream shows (src/record/move.ts).
 *
 * Kept in the record's own SQLite, for as long as the record: no D1 round
 * trip and no other object is added to a keyed operation, and the row is
 * written in the commits the operation makes anyway (the write-ahead note's,
 * the outcome's). The owner's erasure (rule 10) erases every answer kept
 * (erase); one kept after it is built from the erased record.
 *
 * Two places are read: the `idempotency` table, which this code writes, and
 * the record row's `keys` column (schema 8: KeyEntry tuples), which it does
 * not write yet. A key in the row costs a keyed pay no row of its own (the
 * row is written in the note's and the outcome's commits anyway), where the
 * table costs five rows and two pages (docs/capacity.md). The release before reads
 * the table only, so a key written to the row would be lost to it after a
 * rollback, and a repeat would be refused or sent upstream again: the row is
 * written only by the release after this one, when this one is the release
 * it can roll back to (src/record/schema.ts, "An incompatible change"). A key
 * found in both places answers from the one that holds an answer: a key
 * opened by one release and answered by the other.
 */

import type { KeptAnswer } from "../record-stub";
import { clock } from "../shared/clock";
import { erasePersonalJson } from "../shared/redact";
import { KEYS_TABLE } from "./schema";
import type { RecordStore, Slice } from "./store";

/** What a keyed request brings: the key, and its body's fingerprints under every secret in use (a rotation keeps matching). */
export interface KeyedRequest {
  key: string;
  fingerprints: readonly string[];
}

export type { KeptAnswer };

/** What a key says of a request that brings it. */
export type KeyLookup =
  | { kind: "new" }
  | { kind: "replay"; answer: KeptAnswer }
  /** The same key with another body. */
  | { kind: "reused" }
  /** The first request's outcome is not known yet (a timeout, a lost connection, a crash before the answer). */
  | { kind: "unknown"; requestId: string };

type KeyRow = {
  fingerprint: string;
  request_id: string;
  status: number | null;
  answer: string | null;
  headers: string | null;
};

/**
 * A key kept in the record's row (its `keys` column: JSON of these, oldest
 * first): the table's columns in its order. Status, answer (the body's JSON
 * text, as sent) and headers (their JSON object's text) are null while the
 * first request's outcome is unknown.
 */
export type KeyEntry = [
  caller: string,
  operation: string,
  key: string,
  fingerprint: string,
  request_id: string,
  status: number | null,
  answer: string | null,
  headers: string | null,
  created_at: number,
];

/** The row's column: this part's alone. */
export const KEYS_COLUMNS = ["keys"] as const;

export class Keys {
  readonly #storage: DurableObjectStorage;
  readonly #store: RecordStore;
  readonly #row: Slice<(typeof KEYS_COLUMNS)[number]>;

  constructor(storage: DurableObjectStorage, store: RecordStore) {
    this.#storage = storage;
    this.#store = store;
    this.#row = store.slice("keys", KEYS_COLUMNS);
  }

  /** The keys the row holds (none when the column is empty, or absent: a record no release after this one wrote). */
  #entries(): KeyEntry[] {
    const text = this.#store.current?.keys;
    return text ? (JSON.parse(text) as KeyEntry[]) : [];
  }

  /** The row's entry for this caller's key for this operation, as the table's row would read. */
  #inRow(caller: string, operation: string, key: string): KeyRow | undefined {
    const entry = this.#entries().find(([c, o, k]) => c === caller && o === operation && k === key);
    if (!entry) return undefined;
    const [, , , fingerprint, request_id, status, answer, headers] = entry;
    return { fingerprint, request_id, status, answer, headers };
  }

  /**
   * Made by the first key the record meets (src/record/schema.ts KEYS_TABLE):
   * a record nobody repeats has no such page. Asked by lookup(), which every
   * keyed request makes before it opens, answers or forgets its key (no write
   * once the table exists), so a record deleted and rebuilt in one
   * incarnation gets it again.
   */
  #table(): void {
    this.#storage.sql.exec(KEYS_TABLE);
  }

  /** What this caller's key says of a request that brings it, for this operation. */
  lookup(caller: string, operation: string, request: KeyedRequest): KeyLookup {
    this.#table();
    const inTable = this.#storage.sql
      .exec<KeyRow>(
        "SELECT fingerprint, request_id, status, answer, headers FROM idempotency WHERE caller = ? AND operation = ? AND key = ?",
        caller,
        operation,
        request.key,
      )
      .toArray()[0];
    const inRow = this.#inRow(caller, operation, request.key);
    // A key opened by one release and answered by the other: the answer, wherever it is.
    const row = inRow && (inTable === undefined || inTable.answer === null) ? inRow : inTable;
    if (!row) return { kind: "new" };
    if (!request.fingerprints.includes(row.fingerprint)) return { kind: "reused" };
    if (row.status === null || row.answer === null) return { kind: "unknown", requestId: row.request_id };
    return {
      kind: "replay",
      answer: { status: row.status, body: row.answer, headers: row.headers ? (JSON.parse(row.headers) as Record<string, string>) : {} },
    };
  }

  /** The first request with this key is about to call the upstream: its key is kept, with no answer yet (in the note's commit). */
  open(caller: string, operation: string, request: KeyedRequest, requestId: string): void {
    this.#storage.sql.exec(
      "INSERT INTO idempotency (caller, operation, key, fingerprint, request_id, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
      caller,
      operation,
      request.key,
      request.fingerprints[0]!,
      requestId,
      clock.now(),
    );
  }

  /** The answer the key's request got, kept (in the outcome's commit). */
  answer(caller: string, operation: string, request: KeyedRequest, requestId: string, answer: KeptAnswer): void {
    this.#storage.sql.exec(
      `INSERT INTO idempotency (caller, operation, key, fingerprint, request_id, status, answer, headers, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (caller, operation, key) DO UPDATE SET status = excluded.status, answer = excluded.answer, headers = excluded.headers`,
      caller,
      operation,
      request.key,
      request.fingerprints[0]!,
      requestId,
      answer.status,
      answer.body,
      Object.keys(answer.headers).length ? JSON.stringify(answer.headers) : null,
      clock.now(),
    );
  }

  /**
   * Rule 10's erasure: every answer kept so far, in the table and in the
   * row, with the owner's personal data erased, so a repeat shows the values
   * masked. A record no key was used on has no table, and gets none. Inside
   * a change.
   */
  erase(): void {
    const entries = this.#entries();
    const inRow = entries.map((entry): KeyEntry => {
      const [caller, operation, key, fingerprint, requestId, status, answer, headers, createdAt] = entry;
      return answer === null ? entry : [caller, operation, key, fingerprint, requestId, status, erasePersonalJson(answer), headers, createdAt];
    });
    if (inRow.some((entry, i) => entry[6] !== entries[i]![6])) this.#row.update({ keys: JSON.stringify(inRow) });
    const made = this.#storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'idempotency'").toArray().length > 0;
    if (!made) return;
    const kept = this.#storage.sql
      .exec<{ caller: string; operation: string; key: string; answer: string }>(
        "SELECT caller, operation, key, answer FROM idempotency WHERE answer IS NOT NULL",
      )
      .toArray();
    for (const row of kept) {
      const erased = erasePersonalJson(row.answer);
      if (erased === row.answer) continue;
      this.#storage.sql.exec(
        "UPDATE idempotency SET answer = ? WHERE caller = ? AND operation = ? AND key = ?",
        erased,
        row.caller,
        row.operation,
        row.key,
      );
    }
  }

  /** The request did nothing the key should remember (the upstream was busy and did nothing): a retry with it goes through. */
  forget(caller: string, operation: string, request: KeyedRequest): void {
    // Only a key new to both places is forgotten (its request found none), and this code opens keys in the table alone.
    this.#storage.sql.exec("DELETE FROM idempotency WHERE caller = ? AND operation = ? AND key = ?", caller, operation, request.key);
  }
}
