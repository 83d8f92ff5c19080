/**
 * A record's outbox: every state change writes its event here in the same
 * storage step as the change (emit), in the record's row. The drain writes
 * unsent events into the D1 event log (its delivery status, no body), then
 * hands them to their pager for the queue (publishOutbox), and marks them logged only once
 * both succeeded: the record keeps every event's body, byte for byte as
 * signed and sent, for events/list, events/resend and the sweep
 * (src/events/bodies.ts), and it is deleted with the record. The mark is
 * written with the row's next write, or by the alarm at the latest
 * (src/record/outbox-rows.ts). A crash between any two steps loses nothing:
 * what is not marked logged in storage is drained again (the log insert is
 * idempotent, and an event already delivered is not queued twice), and what
 * is marked is in the log, where the sweep sends it again if the queue lost
 * its message. Failed drains back off; the object's alarm comes back for
 * what is owed.
 */

import { publishOutbox } from "../events/publish";
import type { EventType } from "../events/types";
import type { GatewayCause } from "../rules/lifecycle";
import { backoffMs } from "../rules/schedule";
import { clock } from "../shared/clock";
import { log } from "../shared/log";
import { erasePersonalJson } from "../shared/redact";
import { eventPayload } from "./event";
import type { RecordStore, Slice } from "./store";

/** Events handed on per drain. */
const DRAIN_BATCH = 50;
/** The alarm that backs up the immediate drain of new events, should the object stop before it. */
const DRAIN_FALLBACK_MS = 10_000;
/**
 * The latest an alarm already set may be and still back up that drain:
 * three times the fallback. The drain is done at once after each change, so
 * only the events of an object stopped before it wait for the alarm, half a
 * minute at most, far inside the event log's window and MARK_WAIT_MS; and
 * at production's pace the trail's export needs an alarm by then anyway
 * (half of AUDIT_FLUSH_SECONDS after its entry), so the backstop costs no
 * alarm of its own.
 */
const DRAIN_FALLBACK_LATEST_MS = 3 * DRAIN_FALLBACK_MS;
/**
 * How long a drain's mark may wait for the row's next write: an alarm due
 * within it writes the mark if nothing did before. Far below the event log's
 * shortest window, so an object stopped meanwhile drains those events again
 * while the log still holds them (and so logs and delivers nothing twice).
 */
export const MARK_WAIT_MS = 60_000;

export class Outbox {
  readonly #store: RecordStore;
  /** The outbox's column in the row: the last event's sequence. */
  readonly #sequence: Slice<"event_seq">;
  readonly #env: Env;
  /** Drains that failed in a row (the outbox's backoff). */
  #failures = 0;
  /** A drain is under way (one at a time). */
  #draining = false;

  constructor(store: RecordStore, env: Env) {
    this.#store = store;
    this.#sequence = store.slice("outbox", ["event_seq"]);
    this.#env = env;
  }

  /** Writes an event into the outbox, as part of the change it reports. Inside a change. */
  emit(type: EventType, previousState: number | null, requestId: string, at = clock.now(), cause: GatewayCause | null = null): void {
    const rec = this.#store.current!;
    const sequence = rec.event_seq + 1;
    const event = eventPayload({ type, sequence, requestId, objectJson: rec.body, owner: rec.owner, previousState, at, cause });
    this.#sequence.update({ event_seq: sequence });
    this.#store.outbox.enqueue(event.id, event.payload);
  }

  /**
   * Numbers the next event after `sequence` at least (a restored record's:
   * its receivers may have applied events up to it, and ignore an event
   * whose sequence is not above the last they applied). Inside a change.
   */
  continueAfter(sequence: number): void {
    if (this.#store.current!.event_seq < sequence) this.#sequence.update({ event_seq: sequence });
  }

  /** Rule 10's erasure: every event this record keeps, its personal data erased (later events carry the erased body). Inside a change. */
  erase(): void {
    this.#store.outbox.rewrite(erasePersonalJson);
  }

  /** Events are owed and no drain has failed lately: worth draining at once. */
  get ready(): boolean {
    return this.#failures === 0 && !this.#draining && this.#store.outbox.hasUnsent();
  }

  /**
   * When the alarm should come back for owed events, or null; and the latest
   * an alarm already set may be and still do (the fallback is a backstop, not
   * a deadline: DRAIN_FALLBACK_LATEST_MS; after a failed drain, up to twice
   * its backoff saves a write).
   */
  dueAt(now: number): { at: number; latest: number } | null {
    if (!this.#store.outbox.hasUnsent()) return null;
    if (this.#failures === 0) return { at: now + DRAIN_FALLBACK_MS, latest: now + DRAIN_FALLBACK_LATEST_MS };
    const wait = backoffMs(this.#failures);
    return { at: now + wait, latest: now + 2 * wait };
  }

  /** Logs and queues the unsent events; marks them logged only once both succeeded. Never throws. */
  async drain(): Promise<void> {
    if (this.#draining) return;
    const batch = this.#store.outbox.unsent(DRAIN_BATCH);
    if (batch.length === 0) return;
    this.#draining = true;
    try {
      await publishOutbox(
        this.#env,
        batch.map((entry) => ({ id: entry.event_id, payload: entry.body })),
      );
      this.#store.outbox.markSent(batch.map((entry) => entry.seq));
      this.#failures = 0;
    } catch (err) {
      this.#failures++;
      log("warn", "outbox_drain_failed", {
        id: this.#store.current?.id,
        events: batch.length,
        failures: this.#failures,
        error: err instanceof Error ? err.message : String(err),
      });
    } finally {
      this.#draining = false;
    }
  }
}
