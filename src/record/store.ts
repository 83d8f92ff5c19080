/**
 * The storage of one receipt's (or transfer's) Durable Object: the record
 * row, its audit trail and its outbox of events, in the object's SQLite.
 *
 * The schema and its migrations are src/record/schema.ts. Every change of
 * the record is one synchronous step (`change`): the row, its event in the
 * outbox and nothing else in between, so no change is ever without its event
 * and no event without its change, whatever is aborted or evicted.
 *
 * Nothing here stores a card number, expiry, token or OTP: bodies are the
 * upstream client's normalized ones (masked card numbers only), audit rows
 * hold codes and ids.
 */

import { clock } from "../clock";
import type { KindName, UpstreamState } from "../lifecycle";
import { CURRENT_SCHEMA_VERSION, migrate, storedVersion } from "./schema";

export interface RecordRow {
  kind: KindName;
  id: string;
  /** The tid as the caller chose it (what answers show). */
  tid: string;
  /** The tid the upstream holds: the caller's for the partner, a derived UUID for a user (rule 9). */
  upstream_tid: string;
  owner: string;
  is_hold: number;
  qr_merchant: number;
  is_verify: number;
  state: UpstreamState;
  /** The record as the API answers it (JSON text), tid as the caller chose it. */
  body: string;
  wrong_otps: number;
  unconfirmed_otps: number;
  otp_sends: number;
  last_otp_sent_at: number;
  resend_wait_ms: number;
  /** Write-ahead (rule 8): the call that left and whose outcome is not stored; null when none. */
  pending_op: string | null;
  /** 1 when that call carried an OTP. */
  pending_otp: number;
  pending_since: number;
  pending_request_id: string | null;
  /** Who asked for that call ("partner:<id>", "user:<sub>", "gateway"): a lost call is completed only as its caller may. */
  pending_actor: string | null;
  /** Reconciliation attempts that failed in a row (the alarm's backoff). */
  reconcile_attempts: number;
  /** The last event's sequence number. */
  event_seq: number;
  /** 1: exhausted, and the upstream refused for good to cancel it: no more cancels sent (closed at the edge: lifecycle's closedAtEdge). */
  edge_closed: number;
  /**
   * Rule 8's late upstream: when the last call whose outcome was unknown left
   * (0: nothing suspect), how many of the late reads after it are done, and
   * 1 when its OTP was counted as an unconfirmed guess that a late payment
   * would prove right.
   */
  suspect_since: number;
  suspect_reads: number;
  suspect_otp: number;
  /** 1: the owner's personal data was erased (rule 10); bodies stored since are erased too. */
  erased: number;
  /** The audit trail, oldest first: JSON of compact tuples [at, op, actor, request_id, outcome, state]. */
  audit: string;
  /** The create's answer exactly as it was given (JSON), for replays; null for a record rebuilt or made before schema 7. */
  answer: string | null;
  /** The tid-index completion this object owes (src/record/completion.ts), JSON; null when none. */
  owed_completion: string | null;
  created_at: number;
  updated_at: number;
}

export type RecordFields = Partial<Omit<RecordRow, "kind" | "id" | "tid" | "upstream_tid" | "owner" | "created_at" | "audit">>;

/** An audit entry as the row stores it. */
type AuditTuple = [at: number, op: string, actor: string, request_id: string, outcome: string, state: number | null];

/** Audit entries a record keeps: the latest, should a caller repeat refused calls for ever. */
const MAX_AUDIT_ENTRIES = 200;

/** What a record is created with; everything else starts at nothing counted, nothing in flight, nothing suspect. */
type RecordIdentity = Pick<
  RecordRow,
  "kind" | "id" | "tid" | "upstream_tid" | "owner" | "is_hold" | "qr_merchant" | "is_verify" | "state" | "body" | "created_at"
>;

export function newRecordRow(identity: RecordIdentity): Omit<RecordRow, "updated_at"> {
  return {
    ...identity,
    wrong_otps: 0,
    unconfirmed_otps: 0,
    otp_sends: 0,
    last_otp_sent_at: 0,
    resend_wait_ms: 0,
    pending_op: null,
    pending_otp: 0,
    pending_since: 0,
    pending_request_id: null,
    pending_actor: null,
    reconcile_attempts: 0,
    event_seq: 0,
    edge_closed: 0,
    suspect_since: 0,
    suspect_reads: 0,
    suspect_otp: 0,
    erased: 0,
    audit: "[]",
    answer: null,
    owed_completion: null,
  };
}

export interface AuditEntry {
  at: number;
  op: string;
  actor: string;
  request_id: string;
  outcome: string;
  state: number | null;
}

export interface OutboxEntry {
  seq: number;
  event_id: string;
  body: string;
}

/** The record row as SELECTed with its schema version and the outbox's count. */
type StoredRow = RecordRow & { unsent_events: number; schema_version: number };

export class RecordStore {
  readonly #storage: DurableObjectStorage;
  #row: RecordRow | null = null;
  #ready = false;
  /** Bumped by every write of the row, so a read that began before one never overwrites it. */
  #version = 0;
  /** Inside `change`: the row's fields written so far, flushed as one UPDATE at its end. */
  #batch: Record<string, unknown> | null = null;
  /**
   * The outbox's unsent events, oldest first, when this incarnation knows all
   * of them (it created the record, or counted them when it read the row);
   * null when unknown. Draining then reads nothing back from storage.
   */
  #unsent: OutboxEntry[] | null = null;
  /** The last body parsed by parsedBody(), with its text. */
  #parsed: { text: string; value: unknown } | null = null;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
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
    let found: StoredRow | undefined;
    if (!this.#ready) {
      // A woken object: its tables in one look, and, when they are the current schema's, the row in one more
      // (its schema_version column says which); only an older schema goes through the migration's own reads.
      const tables = new Set(
        this.#storage.sql
          .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('record', 'outbox', 'meta')")
          .toArray()
          .map((t) => t.name),
      );
      if (!tables.has("record")) return null;
      // v1 had no outbox, v2-v5 a meta table: neither can be read as the current row.
      // (Before v7 the outbox has no logged_at: that read fails, and the migration takes over.)
      if (tables.has("outbox") && !tables.has("meta")) found = this.#readRowIfCurrent();
      if (found?.schema_version !== CURRENT_SCHEMA_VERSION) {
        if (migrate(this.#storage, false) === 0) return null;
        found = undefined;
      }
      this.#ready = true;
    }
    found ??= this.#readRow();
    if (!found) return null;
    const { unsent_events: unsent, schema_version: _version, ...row } = found;
    if (unsent === 0) this.#unsent = [];
    this.#row = row;
    return this.#row;
  }

  /** The row and whether the outbox owes anything, in one statement. */
  /** The row, and whether the outbox owes anything (events not logged yet), in one statement. */
  #readRow(): StoredRow | undefined {
    return this.#storage.sql.exec("SELECT *, (SELECT count(*) FROM outbox WHERE logged_at IS NULL) AS unsent_events FROM record").toArray()[0] as
      | StoredRow
      | undefined;
  }

  /** #readRow on a woken object whose schema may be older than the current one: undefined if it cannot be read so. */
  #readRowIfCurrent(): StoredRow | undefined {
    try {
      return this.#readRow();
    } catch (err) {
      // An older outbox has no logged_at: the migration reads it its own way. Anything else is a real failure.
      if (String(err).includes("no such column")) return undefined;
      throw err;
    }
  }

  /**
   * Deletes everything this object stored (rule 10): its SQLite tables and
   * its alarm, the only complete removal. The in-memory copies go with them,
   * so the object answers as one that never held a record.
   */
  async deleteAll(): Promise<void> {
    await this.#storage.deleteAlarm();
    await this.#storage.deleteAll();
    this.#row = null;
    this.#ready = false;
    this.#unsent = null;
    this.#version++;
  }

  /** Creates the record (schema, row, audit entry and first event in one step). Idempotent. */
  create(row: Omit<RecordRow, "updated_at">, then: () => void): void {
    if (this.#row) return;
    const from = this.#ready ? CURRENT_SCHEMA_VERSION : this.#makeSchema();
    this.#ready = true;
    if (from !== 0 && this.load()) return;
    this.#unsent = [];
    try {
      this.#storage.transactionSync(() => {
        // What `then` changes (the first event's sequence) lands in the row's one INSERT, not an UPDATE after it.
        this.#row = { ...row, updated_at: row.created_at };
        this.#batch = {};
        try {
          then();
        } finally {
          this.#batch = null;
        }
        const final = this.#row;
        const columns = Object.keys(final);
        this.#storage.sql.exec(
          `INSERT INTO record (singleton, ${columns.join(", ")}) VALUES (1, ${columns.map(() => "?").join(", ")})`,
          ...(Object.values(final) as SqlStorageValue[]),
        );
      });
    } catch (err) {
      this.#row = null;
      this.#unsent = null;
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
    const unsent = this.#unsent?.slice() ?? null;
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
      this.#unsent = unsent;
      throw err;
    }
  }

  /** Writes the fields that differ from the stored row (at the end of the change, inside one). */
  update(fields: RecordFields): void {
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

  #flush(fields: Record<string, unknown>): void {
    const entries = Object.entries(fields);
    if (entries.length === 0) return;
    this.#storage.sql.exec(
      `UPDATE record SET ${entries.map(([key]) => `${key} = ?`).join(", ")}, updated_at = ?`,
      ...entries.map(([, value]) => value as SqlStorageValue),
      this.#row!.updated_at,
    );
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
    else this.#storage.sql.exec("UPDATE record SET audit = ?", audit);
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

  /** Adds an event to the outbox (kept with the record, logged_at set once it is in the event log); call inside the `change` that made it happen. */
  enqueue(eventId: string, body: string, at: number): void {
    const { seq } = this.#storage.sql
      .exec<{ seq: number }>("INSERT INTO outbox (event_id, body, created_at) VALUES (?, ?, ?) RETURNING seq", eventId, body, at)
      .one();
    this.#unsent?.push({ seq, event_id: eventId, body });
  }

  /** The oldest unsent events, up to `limit`. */
  unsent(limit: number): OutboxEntry[] {
    if (this.#unsent) return this.#unsent.slice(0, limit);
    const rows = this.#storage.sql
      .exec<{ seq: number; event_id: string; body: string }>(
        "SELECT seq, event_id, body FROM outbox WHERE logged_at IS NULL ORDER BY seq LIMIT ?",
        limit,
      )
      .toArray();
    // All of them: from now on this incarnation keeps the list itself.
    if (rows.length < limit) this.#unsent = rows;
    return rows;
  }

  hasUnsent(): boolean {
    if (this.#unsent) return this.#unsent.length > 0;
    const any = this.#storage.sql.exec("SELECT 1 FROM outbox WHERE logged_at IS NULL LIMIT 1").toArray().length > 0;
    if (!any) this.#unsent = [];
    return any;
  }

  /** Rewrites every outbox event's body with `rewrite` (rule 10's erasure). Inside a change. */
  rewriteOutbox(rewrite: (body: string) => string): void {
    const rows = this.#storage.sql.exec<{ seq: number; body: string }>("SELECT seq, body FROM outbox").toArray();
    for (const row of rows) {
      const body = rewrite(row.body);
      if (body !== row.body) this.#storage.sql.exec("UPDATE outbox SET body = ? WHERE seq = ?", body, row.seq);
    }
    if (this.#unsent) this.#unsent = this.#unsent.map((entry) => ({ ...entry, body: rewrite(entry.body) }));
  }

  /**
   * Logged events stay in the outbox, marked logged (schema v7): the record
   * gives their bodies to events/list, events/resend and the sweep for as long
   * as the event log lists them (docs/events.md), and they go with the record.
   */
  markSent(seqs: readonly number[], at: number): void {
    if (seqs.length === 0) return;
    this.#storage.sql.exec(`UPDATE outbox SET logged_at = ? WHERE seq IN (${seqs.map(() => "?").join(", ")})`, at, ...seqs);
    if (this.#unsent) {
      const sent = new Set(seqs);
      this.#unsent = this.#unsent.filter((entry) => !sent.has(entry.seq));
    }
  }

  /** The bodies of these events that the outbox holds, byte for byte as signed and sent, by event id. */
  eventBodies(ids: readonly string[]): Record<string, string> {
    if (ids.length === 0) return {};
    const rows = this.#storage.sql
      .exec<{ event_id: string; body: string }>(`SELECT event_id, body FROM outbox WHERE event_id IN (${ids.map(() => "?").join(", ")})`, ...ids)
      .toArray();
    return Object.fromEntries(rows.map((row) => [row.event_id, row.body]));
  }
}
