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
import { OutboxRows } from "./outbox-rows";
import { type AuditEntry, type AuditTuple, MAX_AUDIT_ENTRIES, type RecordFields, type RecordRow, type Slice } from "./row";
import { CURRENT_SCHEMA_VERSION, isSettled, migrate, storedVersion } from "./schema";

export type { AuditEntry, OutboxEntry, RecordFields, RecordRow, Slice } from "./row";
export { newRecordRow } from "./row";

/** The record row as SELECTed, with its schema version. */
type StoredRow = RecordRow & { schema_version: number };

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
  /** Which part owns which column (slice). */
  readonly #owners = new Map<string, string>();
  /** The last body parsed by parsedBody(), with its text. */
  #parsed: { text: string; value: unknown } | null = null;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
    this.outbox = new OutboxRows({ write: () => this.#eventsChanged(), defer: (fields) => this.#defer(fields) });
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
    let found = this.#readRow();
    if (!this.#ready && found && !isSettled(found.schema_version)) {
      // Written by an older gateway, or by this one while the release before may have written it since (an
      // expansion keeps the stamp it reads): brought to this code's layout, then read as it.
      migrate(this.#storage, false, found.schema_version);
      found = this.#readRow();
    }
    if (found === undefined) return null;
    this.#ready = true;
    const { schema_version: _version, ...row } = found;
    this.outbox.know(row);
    this.#row = row;
    return this.#row;
  }

  /** The row with its schema version (and, in it, the outbox), in one statement; undefined when no record is stored. */
  #readRow(): StoredRow | undefined {
    try {
      return this.#storage.sql.exec("SELECT * FROM record").toArray()[0] as StoredRow | undefined;
    } catch (err) {
      // A new object has no tables: no record. Anything else is a real failure.
      if (String(err).includes("no such table")) return undefined;
      throw err;
    }
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
    this.outbox.forget();
    this.#version++;
  }

  /** Creates the record (schema, row, audit entry and first event in one step). Idempotent. */
  create(row: Omit<RecordRow, "updated_at">, then: () => void): void {
    if (this.#row) return;
    const from = this.#ready ? CURRENT_SCHEMA_VERSION : this.#makeSchema();
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
        const columns = Object.keys(final);
        this.#storage.sql.exec(
          `INSERT INTO record (singleton, ${columns.join(", ")}) VALUES (1, ${columns.map(() => "?").join(", ")})`,
          ...(Object.values(final) as SqlStorageValue[]),
        );
      });
    } catch (err) {
      this.#row = null;
      this.outbox.forget();
      throw err;
    }
  }

  /**
   * The schema for a record about to be created; the version it was at (0:
   * none). A new object (every create's) has no tables, so the current
   * schema is made straight away; only if that fails (the tables are there:
   * a create repeated after its object restarted) are they looked at and
   * migrated.
   */
  #makeSchema(): number {
    try {
      migrate(this.#storage, true, 0);
      return 0;
    } catch {
      const from = storedVersion(this.#storage.sql);
      migrate(this.#storage, true, from);
      return from;
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

  /**
   * The writer of one part's columns (its slice of the row): every part owns
   * its columns alone, and a column claimed by two parts is a wiring error,
   * refused when the parts are made. Writes go through the change in hand.
   */
  slice<K extends keyof RecordFields>(part: string, columns: readonly K[]): Slice<K> {
    for (const column of columns) {
      const owner = this.#owners.get(column);
      if (owner !== undefined && owner !== part) throw new Error(`record column ${column} belongs to ${owner}, not ${part}`);
      this.#owners.set(column, part);
    }
    const mine = new Set<string>(columns);
    return {
      update: (fields) => {
        for (const key of Object.keys(fields)) if (!mine.has(key)) throw new Error(`${part} may not write ${key}`);
        this.#update(fields);
      },
      later: (fields) => {
        for (const key of Object.keys(fields)) if (!mine.has(key)) throw new Error(`${part} may not write ${key}`);
        this.#row = { ...this.#row!, ...fields };
        Object.assign(this.#batch ?? this.#lazy, fields);
      },
    };
  }

  /** Which part owns each column (for the test that every mutable column has exactly one). */
  get owners(): ReadonlyMap<string, string> {
    return this.#owners;
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

  /** Columns written with the row's next write (inside a change: with its UPDATE); the copy holds them now. */
  #defer(fields: Record<string, unknown>): void {
    this.#row = { ...this.#row!, ...fields };
    Object.assign(this.#batch ?? this.#deferred, fields);
  }

  /**
   * One UPDATE of these fields, with whatever waited for the row's next
   * write. The events' bodies are stored as parts of the row's body and
   * answer (src/record/event-texts.ts), so they are encoded again against
   * the row as written whenever either changes, or they do.
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
    const entries = Object.entries(pending);
    if (entries.length === 0) return;
    this.#storage.sql.exec(
      `UPDATE record SET ${entries.map(([key]) => `${key} = ?`).join(", ")}, updated_at = ?`,
      ...entries.map(([, value]) => value as SqlStorageValue),
      this.#row!.updated_at,
    );
    this.#deferred = {};
    this.#lazy = {};
  }

  /**
   * Appends to the audit trail, kept in the record's row (one page for the
   * whole record: docs/capacity.md). Not a change of the record: it moves
   * neither updated_at nor the version.
   */
  audit(entry: Omit<AuditEntry, "state">): void {
    if (!this.#row) return;
    const entries = JSON.parse(this.#row.audit) as AuditTuple[];
    entries.push([entry.at, entry.op, entry.actor, entry.request_id, entry.outcome, this.#row.state]);
    const audit = JSON.stringify(entries.slice(-MAX_AUDIT_ENTRIES));
    this.#row = { ...this.#row, audit };
    // Inside a change, its one UPDATE at the end takes it; inside create, the INSERT takes the row's audit.
    if (this.#batch) this.#batch.audit = audit;
    else this.#flush({ audit });
  }

  /**
   * Rule 15: the entries of the trail not yet in the audit trail in R2, each
   * with its place among the entries of its millisecond (its id's last part),
   * oldest first; none when every entry is exported. The last exported entry
   * carries a seventh element, 1 (an older release reads past it and keeps
   * it): every entry before it is exported too.
   */
  auditToExport(): { entry: AuditEntry; n: number; tuple: AuditTuple }[] {
    if (!this.#row) return [];
    const tuples = JSON.parse(this.#row.audit) as AuditTuple[];
    let from = 0;
    for (let i = tuples.length - 1; i >= 0; i--) {
      if ((tuples[i] as unknown[])[6] === 1) {
        from = i + 1;
        break;
      }
    }
    const seen = new Map<number, number>();
    const out: { entry: AuditEntry; n: number; tuple: AuditTuple }[] = [];
    tuples.forEach((tuple, i) => {
      const n = seen.get(tuple[0]) ?? 0;
      seen.set(tuple[0], n + 1);
      if (i < from) return;
      const [at, op, actor, request_id, outcome, state] = tuple;
      out.push({ entry: { at, op, actor, request_id, outcome, state }, n, tuple });
    });
    return out;
  }

  /**
   * These entries (the last of what auditToExport gave) are in the audit
   * trail in R2: the mark moves to it, written with the row's next write (or
   * the alarm's at the latest), as the drain's mark is.
   */
  markAuditExported(last: AuditTuple): void {
    if (!this.#row) return;
    const tuples = JSON.parse(this.#row.audit) as unknown[][];
    let at = -1;
    for (let i = tuples.length - 1; i >= 0; i--) {
      const t = tuples[i]!;
      if (t[0] === last[0] && t[1] === last[1] && t[3] === last[3] && t[4] === last[4]) {
        at = i;
        break;
      }
    }
    if (at < 0) return;
    const marked = tuples.map((t, i) => (i === at ? [...t.slice(0, 6), 1] : t.slice(0, 6)));
    this.#defer({ audit: JSON.stringify(marked) });
  }

  auditTrail(): AuditEntry[] {
    if (!this.#row) return [];
    return (JSON.parse(this.#row.audit) as AuditTuple[]).map(([at, op, actor, request_id, outcome, state]) => ({
      at,
      op,
      actor,
      request_id,
      outcome,
      state,
    }));
  }
}
