/**
 * The outbox table of a record's object: every event its record's changes
 * made, kept once logged (marked `logged_at`) for the event log's lists and
 * resends, and what this incarnation knows of the ones not logged yet, so
 * that a drain reads nothing back from storage. Written only inside the
 * record store's changes (src/record/store.ts), which put the in-memory list
 * back when a change fails.
 */
import type { OutboxEntry } from "./row";

export class OutboxRows {
  readonly #storage: DurableObjectStorage;
  /**
   * The unsent events, oldest first, when this incarnation knows all of them
   * (it created the record, or counted them when it read the row); null when unknown.
   */
  #unsent: OutboxEntry[] | null = null;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
  }

  /** This incarnation knows every unsent event: these. */
  know(unsent: OutboxEntry[]): void {
    this.#unsent = unsent;
  }

  /** Storage was deleted, or a failed step left the list unknown. */
  forget(): void {
    this.#unsent = null;
  }

  snapshot(): OutboxEntry[] | null {
    return this.#unsent?.slice() ?? null;
  }

  restore(unsent: OutboxEntry[] | null): void {
    this.#unsent = unsent;
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
  rewrite(rewrite: (body: string) => string): void {
    const rows = this.#storage.sql.exec<{ seq: number; body: string }>("SELECT seq, body FROM outbox").toArray();
    for (const row of rows) {
      const body = rewrite(row.body);
      if (body !== row.body) this.#storage.sql.exec("UPDATE outbox SET body = ? WHERE seq = ?", body, row.seq);
    }
    if (this.#unsent) this.#unsent = this.#unsent.map((entry) => ({ ...entry, body: rewrite(entry.body) }));
  }

  /**
   * Logged events stay in the outbox, marked logged: the record
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
