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
 */

import type { KeptAnswer } from "../record-stub";
import { clock } from "../shared/clock";
import { erasePersonalJson } from "../shared/redact";
import { KEYS_TABLE } from "./schema";

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

export class Keys {
  readonly #storage: DurableObjectStorage;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
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
    const row = this.#storage.sql
      .exec<KeyRow>(
        "SELECT fingerprint, request_id, status, answer, headers FROM idempotency WHERE caller = ? AND operation = ? AND key = ?",
        caller,
        operation,
        request.key,
      )
      .toArray()[0];
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
   * Rule 10's erasure: every answer kept so far with the owner's personal data
   * erased, so a repeat shows the values masked. A record no key was used on
   * has no table, and gets none. Inside a change.
   */
  erase(): void {
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
    this.#storage.sql.exec("DELETE FROM idempotency WHERE caller = ? AND operation = ? AND key = ?", caller, operation, request.key);
  }
}
