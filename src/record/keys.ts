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
 * Written to the record row's `keys` column alone (schema 8: KeyEntry
 * tuples), in the commits the operation makes anyway: the note's (the key
 * opened, waiting for the note's UPDATE) and the outcome's (its answer, in
 * the settlement's change). A keyed pay then writes no row of its own, where
 * the `idempotency` table the releases before made cost five rows and two
 * pages (docs/capacity.md). That table is still read, and erased, where one
 * of them made it (a record they keyed): a key found in both places answers
 * from the one that holds an answer (opened by one release, answered by the
 * other). The release before this one reads both places, so a rollback to it
 * keeps every key; the one before that reads the table only, which is why
 * rows are stamped 8 (src/record/schema.ts OLDEST_READER_VERSION).
 */

import type { KeptAnswer } from "../record-stub";
import { clock } from "../shared/clock";
import { erasePersonalJson } from "../shared/redact";
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
 * first request's outcome is unknown. The store gives the column with every
 * answer whole, and stores it as parts of the row's texts where it repeats
 * them (src/record/key-texts.ts).
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

/** Whether a row entry is this caller's key for this operation. */
const sameKey =
  (caller: string, operation: string, key: string) =>
  ([c, o, k]: KeyEntry): boolean =>
    c === caller && o === operation && k === key;

export class Keys {
  readonly #storage: DurableObjectStorage;
  readonly #store: RecordStore;
  readonly #row: Slice<(typeof KEYS_COLUMNS)[number]>;

  constructor(storage: DurableObjectStorage, store: RecordStore) {
    this.#storage = storage;
    this.#store = store;
    this.#row = store.slice("keys", KEYS_COLUMNS);
  }

  /** The keys the row holds (none when the column is empty: a record no key was used on, or keyed only by a release before). */
  #entries(): KeyEntry[] {
    const text = this.#store.current?.keys;
    return text ? (JSON.parse(text) as KeyEntry[]) : [];
  }

  /** The row's entry for this caller's key for this operation, as the table's row would read. */
  #inRow(caller: string, operation: string, key: string): KeyRow | undefined {
    const entry = this.#entries().find(sameKey(caller, operation, key));
    if (!entry) return undefined;
    const [, , , fingerprint, request_id, status, answer, headers] = entry;
    return { fingerprint, request_id, status, answer, headers };
  }

  /** Whether a release before this one made the record's `idempotency` table (this code makes none). */
  #hasTable(): boolean {
    return this.#storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'idempotency'").toArray().length > 0;
  }

  /**
   * The row's keys with this one put in place of the caller's entry for it:
   * written now (inside a change, with its one UPDATE), or with the row's
   * next write (an opened key: the note's, before its call leaves).
   */
  #put(entry: KeyEntry, now: boolean): void {
    const same = sameKey(entry[0], entry[1], entry[2]);
    const others = this.#entries().filter((other) => !same(other));
    const keys = JSON.stringify([...others, entry]);
    if (now) this.#row.update({ keys });
    else this.#row.later({ keys });
  }

  /** What this caller's key says of a request that brings it, for this operation. */
  lookup(caller: string, operation: string, request: KeyedRequest): KeyLookup {
    const inTable = !this.#hasTable()
      ? undefined
      : this.#storage.sql
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
    this.#put([caller, operation, request.key, request.fingerprints[0]!, requestId, null, null, null, clock.now()], false);
  }

  /** The answer the key's request got, kept (in the outcome's commit). */
  answer(caller: string, operation: string, request: KeyedRequest, requestId: string, answer: KeptAnswer): void {
    const headers = Object.keys(answer.headers).length ? JSON.stringify(answer.headers) : null;
    const opened = this.#entries().find(sameKey(caller, operation, request.key));
    const entry: KeyEntry = [
      caller,
      operation,
      request.key,
      request.fingerprints[0]!,
      opened?.[4] ?? requestId,
      answer.status,
      answer.body,
      headers,
      opened?.[8] ?? clock.now(),
    ];
    this.#put(entry, true);
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
    if (!this.#hasTable()) return;
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
    const entries = this.#entries();
    const same = sameKey(caller, operation, request.key);
    const kept = entries.filter((entry) => !same(entry));
    if (kept.length < entries.length) this.#row.update({ keys: kept.length ? JSON.stringify(kept) : null });
  }
}
