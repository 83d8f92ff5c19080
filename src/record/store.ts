/**
 * The storage of one receipt's (or transfer's) Durable Object: the record
 * row, with its audit trail and its outbox of events in it, in the object's
 * SQLite: one table, one row.
 *
 * The schema and its migrations are src/record/schema.ts. Every change of
 * the record is one synchronous step (`change`) and one UPDATE: the row and
 * its event in the outbox together, so no change is ever without its event
 * and no event without its change, whatever is aborted or evicted. What is
 * worth no write of its own (the drain's mark: src/record/outbox-rows.ts)
 * waits for the row's next write.
 *
 * Nothing here stores a card number, expiry, token or OTP: bodies are the
 * upstream client's normalized ones (masked card numbers only), audit rows
 * hold codes and ids.
 */

import { clock } from "../shared/clock";
import { keysColumn, keysFromColumn } from "./key-texts";
import { OutboxRows } from "./outbox-rows";
import type { RecordFields, RecordRow, Slice } from "./row";
import { asWritten, CURRENT_SCHEMA_VERSION, isSettled, makeSchema, migrate, OLDEST_READER_VERSION, readRecordRow } from "./schema";
import { Slices } from "./slices";
import { TrailRows } from "./trail-rows";

export type { AuditEntry, OutboxEntry, RecordFields, RecordRow, Slice } from "./row";
export { newRecordRow } from "./row";

export class RecordStore {
  readonly #storage: DurableObjectStorage;
  #row: RecordRow | null = null;
  #ready = false;
  /** Bumped by every write of the row, so a read that began before one never overwrites it. */
  #version = 0;
  /** Inside `change`: the row's fields written so far, flushed as one UPDATE at its end. */
  #batch: Record<string, unknown> | null = null;
  /** Fields the copy holds and storage not yet, written with the row's next write, at the latest by the alarm (`defer`). */
  #deferred: Record<string, unknown> = {};
  /** Fields the copy holds and storage not yet, written with the row's next write if one comes (a slice's `later`). */
  #lazy: Record<string, unknown> = {};
  /** The outbox, in the row: every event of the record and how many are logged. */
  readonly outbox: OutboxRows;
  /** The audit trail, in the row: its entries and how far their export has come. */
  readonly trail: TrailRows;
  /** Which part owns which column. */
  readonly #slices = new Slices({ update: (fields) => this.#update(fields), later: (fields) => this.#later(fields) });
  /** The last body parsed by parsedBody(), with its text. */
  #parsed: { text: string; value: unknown } | null = null;
  /**
   * The `keys` column as stored (src/record/key-texts.ts): the copy
   * holds the keys' answers whole, the column may hold them as parts of the
   * row's texts, like the events' bodies.
   */
  #keysStored: string | null = null;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
    this.outbox = new OutboxRows({ write: () => this.#eventsChanged(), defer: (fields) => this.#defer(fields) });
    this.trail = new TrailRows({ row: () => this.#row, write: (audit) => this.#auditChanged(audit), defer: (fields) => this.#defer(fields) });
  }

  get version(): number {
    return this.#version;
  }

  /** The row as last read or written; null before the record exists. */
  get current(): RecordRow | null {
    return this.#row;
  }

  /**
   * The record. Read from storage once per incarnation: after that this
   * object is its only writer (a Durable Object is single-threaded, and every
   * write goes through `change`/`update`, which keep the copy in step and put
   * it back if a step fails), so the copy is the stored row.
   */
  load(): RecordRow | null {
    if (this.#row) return this.#row;
    let found = readRecordRow(this.#storage);
    let migrated = false;
    if (!this.#ready && found && !isSettled(found.schema_version) && !(found.schema_version === OLDEST_READER_VERSION && asWritten(found))) {
      // Written by an older gateway, or by this one and changed since by the release before (an expansion keeps
      // the stamp it reads): brought to this code's layout, then read as it.
      migrate(this.#storage, false, found.schema_version);
      found = readRecordRow(this.#storage);
      migrated = true;
    }
    if (found === undefined) return null;
    this.#ready = true;
    const { schema_version: _version, written_at: _written, keys: stored, ...rest } = found;
    const row: RecordRow = { ...rest, keys: keysFromColumn(stored, rest) };
    this.outbox.know(row);
    this.#row = row;
    this.#keysStored = stored ?? null;
    // The stamp migrate wrote says this code's form: the keys stored in another (a newer release's, before a
    // rollback) are written in this one with it, not left for a release the stamp lets in to misread.
    if (migrated && keysColumn(row.keys, row) !== this.#keysStored) this.#flush({ keys: row.keys });
    return this.#row;
  }

  /**
   * Deletes everything this object stored (rule 10): its SQLite tables, the
   * only complete removal (its alarm is the Alarm's to delete: src/record/end.ts).
   * The in-memory copies go with them, so the object answers as one that
   * never held a record.
   */
  async deleteAll(): Promise<void> {
    await this.#storage.deleteAll();
    this.#row = null;
    this.#ready = false;
    this.#deferred = {};
    this.#lazy = {};
    this.#keysStored = null;
    this.outbox.forget();
    this.#version++;
  }

  /** Creates the record (schema, row, audit entry and first event in one step). Idempotent. */
  create(row: Omit<RecordRow, "updated_at">, then: () => void): void {
    if (this.#row) return;
    const from = this.#ready ? CURRENT_SCHEMA_VERSION : makeSchema(this.#storage);
    this.#ready = true;
    if (from !== 0 && this.load()) return;
    try {
      this.#storage.transactionSync(() => {
        // What `then` changes (the first event, its sequence) lands in the row's one INSERT, not an UPDATE after it.
        this.#row = { ...row, updated_at: row.created_at };
        this.outbox.know(this.#row);
        this.#batch = {};
        try {
          then();
        } finally {
          this.#batch = null;
        }
        const final = { ...this.#row, events: this.outbox.column(this.#row) };
        this.#row = final;
        const stored = { ...final, keys: keysColumn(final.keys, final) };
        const columns = Object.keys(stored);
        // written_at: the row as this code wrote it (src/record/schema.ts, schema 7).
        this.#storage.sql.exec(
          `INSERT INTO record (singleton, ${columns.join(", ")}, written_at) VALUES (1, ${columns.map(() => "?").join(", ")}, ?)`,
          ...(Object.values(stored) as SqlStorageValue[]),
          final.updated_at,
        );
        this.#keysStored = stored.keys;
      });
    } catch (err) {
      this.#row = null;
      this.outbox.forget();
      throw err;
    }
  }

  /** The row's body parsed (do not change it): parsed once per body read or written, not on every use. */
  parsedBody<T>(): T {
    const text = this.#row!.body;
    if (this.#parsed?.text !== text) this.#parsed = { text, value: JSON.parse(text) };
    return this.#parsed.value as T;
  }

  /**
   * Runs `step` as one synchronous transaction: every write in it lands
   * together or not at all, and the row's changed fields are written by a
   * single UPDATE at its end. If it fails, the in-memory copies are put back
   * as they were, like the storage.
   */
  change<T>(step: () => T): T {
    if (this.#batch) return step();
    const row = this.#row;
    const outbox = this.outbox.snapshot();
    const deferred = this.#deferred;
    const lazy = this.#lazy;
    const keysStored = this.#keysStored;
    try {
      return this.#storage.transactionSync(() => {
        this.#batch = {};
        try {
          const result = step();
          this.#flush(this.#batch);
          return result;
        } finally {
          this.#batch = null;
        }
      });
    } catch (err) {
      this.#row = row;
      this.outbox.restore(outbox);
      this.#deferred = deferred;
      this.#lazy = lazy;
      this.#keysStored = keysStored;
      throw err;
    }
  }

  /** Fields waiting for the row's next write (the drain's mark): there is something to write. */
  get owesWrite(): boolean {
    return Object.keys(this.#deferred).length > 0;
  }

  /** Writes what waits for the row's next write, now (one UPDATE), when nothing else will soon enough. */
  writeDeferred(): void {
    if (this.owesWrite && this.#row) this.#flush({});
  }

  /**
   * Writes now what the copy holds and storage not yet (a slice's `later`,
   * the drain's mark), with no change of the record: its time (updated_at)
   * stays. For the record's own clock (src/shared/clock.ts), which moves the time
   * every window counts in and must not itself count as a change.
   */
  writeUnchanged(): void {
    if (this.#row) this.#flush({});
  }

  /** The writer of one part's columns (its slice of the row): src/record/slices.ts. */
  slice<K extends keyof RecordFields>(part: string, columns: readonly K[]): Slice<K> {
    return this.#slices.slice(part, columns);
  }

  get owners(): ReadonlyMap<string, string> {
    return this.#slices.owners;
  }

  /** Writes the fields that differ from the stored row (at the end of the change, inside one). */
  #update(fields: RecordFields): void {
    const current = this.#row as unknown as Record<string, unknown>;
    const entries = Object.entries(fields).filter(([key, value]) => value !== undefined && current[key] !== value);
    if (entries.length === 0) return;
    const before = this.#row;
    this.#row = { ...this.#row!, ...Object.fromEntries(entries), updated_at: clock.now() };
    this.#version++;
    if (this.#batch) Object.assign(this.#batch, Object.fromEntries(entries));
    else {
      try {
        this.#flush(Object.fromEntries(entries));
      } catch (err) {
        this.#row = before;
        throw err;
      }
    }
  }

  /** The outbox's events changed: the column is written with the change in hand, encoded by #flush against the row as written. */
  #eventsChanged(): void {
    if (this.#batch) this.#batch.events = this.#row!.events;
    else this.#flush({ events: this.#row!.events });
  }

  /**
   * The trail changed. Not a change of the record: it moves neither
   * updated_at nor the version. Inside a change, its one UPDATE at the end
   * takes it; inside create, the INSERT takes the row's audit.
   */
  #auditChanged(audit: string): void {
    this.#row = { ...this.#row!, audit };
    if (this.#batch) this.#batch.audit = audit;
    else this.#flush({ audit });
  }

  /** A slice's fields worth no write of their own: written with the row's next write if one comes. */
  #later(fields: RecordFields): void {
    this.#row = { ...this.#row!, ...fields };
    Object.assign(this.#batch ?? this.#lazy, fields);
  }

  /** Columns written with the row's next write (inside a change: with its UPDATE); the copy holds them now. */
  #defer(fields: Record<string, unknown>): void {
    this.#row = { ...this.#row!, ...fields };
    Object.assign(this.#batch ?? this.#deferred, fields);
  }

  /**
   * One UPDATE of these fields, with whatever waited for the row's next
   * write. The events' bodies are stored as parts of the row's body and
   * answer (src/record/event-texts.ts), so they are encoded again against
   * the row as written whenever either changes, or they do; so is the
   * `keys` column (src/record/key-texts.ts), which the copy holds
   * whole.
   */
  #flush(fields: Record<string, unknown>): void {
    const pending = { ...this.#lazy, ...this.#deferred, ...fields };
    if ("events" in pending || "body" in pending || "answer" in pending) {
      const events = this.outbox.column(this.#row!);
      if (events !== this.#row!.events || "events" in pending) {
        pending.events = events;
        this.#row = { ...this.#row!, events };
      }
    }
    if ("keys" in pending || "body" in pending || "answer" in pending) {
      const keys = keysColumn(this.#row!.keys, this.#row!);
      if (keys !== this.#keysStored) pending.keys = keys;
      else delete pending.keys;
    }
    const entries = Object.entries(pending);
    if (entries.length === 0) return;
    // written_at with updated_at: the row as this code wrote it (src/record/schema.ts, schema 7).
    this.#storage.sql.exec(
      `UPDATE record SET ${entries.map(([key]) => `${key} = ?`).join(", ")}, updated_at = ?, written_at = ?`,
      ...entries.map(([, value]) => value as SqlStorageValue),
      this.#row!.updated_at,
      this.#row!.updated_at,
    );
    if ("keys" in pending) this.#keysStored = pending.keys as string | null;
    this.#deferred = {};
    this.#lazy = {};
  }
}
