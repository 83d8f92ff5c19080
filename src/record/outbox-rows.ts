/**
 * The outbox of a record's object, kept in the record's own row (its
 * `events` column: one table, and an event is no row of its own): every
 * event its record's changes made, kept once logged for the event log's
 * lists and resends, and how many of the first ones are in the event log
 * (`events_logged`).
 *
 * The column keeps each body as parts of the row's own texts where it
 * repeats them (src/record/event-texts.ts): this class holds the bodies
 * whole, and the store writes them encoded against the row as it is written.
 *
 * An event is written by the change that makes it, in the same UPDATE. The
 * drain's mark (how many are logged) is not worth a write of its own: it is
 * written with the row's next write, or by the record's alarm at the latest
 * (src/record/wake.ts). Should the object stop before that, its next
 * incarnation drains those events again: the event log takes each one once
 * (by id), and one it has delivered is not queued again.
 */
import { withObjectType } from "../events/types";
import { bodyEncoder, decodeBody, type Part, type SharedTexts } from "./event-texts";
import type { OutboxEntry } from "./row";

/** How the outbox writes its columns of the record's row (the store's). */
export interface RowWriter {
  /** The events changed: written with the change in hand (inside one), encoded against the row as it is written. */
  write(): void;
  /** With the row's next write. */
  defer(fields: { events_logged: number }): void;
}

/** An event as this class holds it: its id and its body, whole. */
type Stored = [event_id: string, body: string];

/** What the row's texts are, for the events' bodies that refer to them. */
type RowTexts = { answer: string | null; body: string };

const textsOf = (row: RowTexts): SharedTexts => [row.answer, row.body];

/**
 * The events of a row's `events` column, each [event_id, body] with its body
 * whole (also for the tests that read the column); a body kept before
 * `data.object_type` existed with it added.
 */
export function storedEvents(row: RowTexts & { events: string }): Stored[] {
  const texts = textsOf(row);
  return (JSON.parse(row.events) as [string, ...Part[]][]).map(([id, ...parts]) => [id, withObjectType(decodeBody(parts, texts))]);
}

export class OutboxRows {
  readonly #writer: RowWriter;
  /** Every event of the record, oldest first; null while no record is loaded. */
  #events: Stored[] | null = null;
  /** How many of the first events are in the event log, as this incarnation knows. */
  #logged = 0;

  constructor(writer: RowWriter) {
    this.#writer = writer;
  }

  /** The record's events as its row holds them. */
  know(row: RowTexts & { events: string; events_logged: number }): void {
    this.#events = storedEvents(row);
    this.#logged = row.events_logged;
  }

  /** Storage was deleted, or a failed step left the events unknown. */
  forget(): void {
    this.#events = null;
    this.#logged = 0;
  }

  snapshot(): { events: Stored[] | null; logged: number } {
    return { events: this.#events?.slice() ?? null, logged: this.#logged };
  }

  restore(snapshot: { events: Stored[] | null; logged: number }): void {
    this.#events = snapshot.events;
    this.#logged = snapshot.logged;
  }

  /** Adds an event to the outbox (kept with the record); call inside the `change` that made it happen. */
  enqueue(eventId: string, body: string): void {
    if (!this.#events) throw new Error("no record to add an event to");
    this.#events.push([eventId, body]);
    this.#writer.write();
  }

  /** The oldest events not in the event log, up to `limit`. */
  unsent(limit: number): OutboxEntry[] {
    return (this.#events ?? []).slice(this.#logged, this.#logged + limit).map(([event_id, body], i) => ({ seq: this.#logged + i, event_id, body }));
  }

  hasUnsent(): boolean {
    return this.#events !== null && this.#logged < this.#events.length;
  }

  /** Rewrites every outbox event's body with `rewrite` (rule 10's erasure). Inside a change. */
  rewrite(rewrite: (body: string) => string): void {
    if (!this.#events) return;
    const before = JSON.stringify(this.#events);
    this.#events = this.#events.map(([id, body]) => [id, rewrite(body)]);
    if (JSON.stringify(this.#events) !== before) this.#writer.write();
  }

  /** The `events` column for a row with these texts: every body as parts of them where it repeats them. */
  column(row: RowTexts): string {
    const encode = bodyEncoder(textsOf(row));
    return JSON.stringify((this.#events ?? []).map(([id, body]) => [id, ...encode(body)]));
  }

  /**
   * These events (the oldest unsent, as `unsent` gave them) are in the event
   * log. Logged events stay: the record gives their bodies to events/list,
   * events/resend and the sweep for as long as the event log lists them
   * (docs/events.md), and they go with the record. The mark waits for the
   * row's next write (this module's header).
   */
  markSent(seqs: readonly number[]): void {
    if (seqs.length === 0 || !this.#events) return;
    const logged = Math.min(this.#events.length, Math.max(this.#logged, ...seqs.map((seq) => seq + 1)));
    if (logged === this.#logged) return;
    this.#logged = logged;
    this.#writer.defer({ events_logged: logged });
  }

  /** The bodies of these events that the outbox holds, byte for byte as signed and sent, by event id. */
  eventBodies(ids: readonly string[]): Record<string, string> {
    const wanted = new Set(ids);
    return Object.fromEntries((this.#events ?? []).filter(([id]) => wanted.has(id)));
  }

  /** The ids of every event the record keeps, oldest first: all the event log may list of it. */
  eventIds(): string[] {
    return (this.#events ?? []).map(([id]) => id);
  }
}
