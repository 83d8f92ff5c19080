/**
 * The record's one alarm, and what it does when it fires. It asks each part
 * when it is next due (the reconciler's looks and late reads, rule 12's
 * expiry, the outbox's drain, the tid completion owed, the record's end) and
 * sets the earliest; firing, it does what is due in that order: the owed
 * completion, the end, the look (with no caller: rule 8; the expiry follows
 * it), then the outbox's drain.
 */
import { clock } from "../clock";
import { log } from "../log";
import type { Moves } from "./move";
import { MARK_WAIT_MS } from "./outbox";
import type { RecordParts } from "./parts";
import { isNewerSchema } from "./schema";

/** How often the alarm of a record a newer release stored looks again whether a release that reads it serves. */
export const NEWER_SCHEMA_RECHECK_MS = 15 * 60_000;

export class Wake {
  readonly #parts: RecordParts;
  readonly #moves: Moves;

  constructor(parts: RecordParts, moves: Moves) {
    this.#parts = parts;
    this.#moves = moves;
  }

  /** The alarm fired. */
  async fired(): Promise<void> {
    const { store, alarm, completion, end, reconciler, lateReads, outbox, writeAhead } = this.#parts;
    alarm.fired();
    let rec: ReturnType<typeof store.load>;
    try {
      rec = store.load();
    } catch (err) {
      if (!isNewerSchema(err)) throw err;
      // A rollback put this release on a record a newer one stored: it stays as it is, and what it owes waits
      // for a release that reads it (a failing alarm would be retried a few times, then dropped).
      log("warn", "record_schema_newer", { error: (err as Error).message });
      alarm.set(clock.now() + NEWER_SCHEMA_RECHECK_MS);
      return;
    }
    if (!rec) return;
    // The tid completion owed since the init (src/record/completion.ts): made sure of, then forgotten.
    if (rec.owed_completion !== null) {
      await completion.settle(rec, clock.now());
      rec = store.current ?? rec;
    }
    if (!this.#moves.busy && (await end.deleteIfDue(rec, clock.now(), () => !this.#moves.busy))) return;
    try {
      // Unless an operation of this incarnation is in flight (it settles the record itself), or a call an earlier
      // incarnation noted may still be running (an alarm set for something else fired first: the next is set for then).
      const look = reconciler.needsReconcile(rec) || lateReads.isDue(rec) || this.#moves.expiryDue();
      if (!this.#moves.busy && look && !writeAhead.mayStillRun(rec, clock.now())) await this.#moves.reconcileAlone();
      // Draining takes no lock: an operation may run meanwhile and add events; only the drained ones are marked sent.
      await outbox.drain();
    } catch (err) {
      log("error", "receipt_alarm_failed", { id: rec.id, kind: rec.kind, error: err instanceof Error ? err.message : String(err) });
    } finally {
      // What waited for the row's next write (a drain's mark) waits no longer than the alarm.
      store.writeDeferred();
      this.arm(false);
    }
  }

  /**
   * After every operation and alarm: events still owed are drained at once,
   * in the background (nobody's answer waits for them), and whatever is owed
   * has an alarm, so an eviction or a crash before the drain loses nothing.
   * An alarm already due early enough is left alone. A drain's mark waits
   * for the row's next write only while an alarm due soon would write it.
   */
  arm(drainNow = true): void {
    const { store, alarm, completion, end, reconciler, outbox, expiry } = this.#parts;
    const rec = store.current;
    if (!rec) return;
    const now = clock.now();
    // Rule 12's expiry is one more look: the earliest of the two.
    const reconcileAt = earliest(reconciler.nextAt(rec, now), expiry.dueAt(rec, reconciler.phase(rec), now));
    const drain = outbox.dueAt(now);
    const completeAt = completion.dueAt(rec);
    // A completion owed keeps the record from its end: deleting it would forget the claim.
    const deleteAt = completeAt === null ? end.deleteAt(rec) : null;
    const due = Math.min(reconcileAt ?? Infinity, drain?.at ?? Infinity, deleteAt ?? Infinity, completeAt ?? Infinity);
    const latest = Math.min(reconcileAt ?? Infinity, drain?.latest ?? Infinity, completeAt ?? Infinity);
    if (due === Infinity) alarm.set(null);
    else if (!alarm.setWithin(now, latest)) alarm.set(due);
    if (store.owesWrite && !alarm.setWithin(now, now + MARK_WAIT_MS)) store.writeDeferred();
    if (drainNow && outbox.ready) void outbox.drain().then(() => this.arm(false));
  }
}

/** The earlier of two times, either of which may be none. */
const earliest = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.min(a, b));
