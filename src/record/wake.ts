/**
 * The record's one alarm, and what it does when it fires. It asks each part
 * when it is next due (the reconciler's looks and late reads, rule 12's
 * expiry, rule 14's reads of a receipt whose fiscal data is missing, the
 * outbox's drain, the fiscal list's write, the tid completion owed, the
 * record's end, the audit trail's export) and sets the earliest; firing, it
 * does what is due in that order: the owed completion, the trail's export
 * (rule 15: a record that owes entries is not deleted), the end, the look
 * (with no caller: rule 8; the expiry follows it), then the outbox's drain,
 * the trail's export and the fiscal list's write.
 */

import { isNewerSchema } from "../errors/errors";
import { clock } from "../shared/clock";
import { log } from "../shared/log";
import type { Moves } from "./move";
import { MARK_WAIT_MS } from "./outbox";
import type { RecordParts } from "./parts";

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
    const { store, alarm, completion, end, reconciler, lateReads, fiscal, outbox, writeAhead, audit } = this.#parts;
    alarm.fired();
    /** An alarm set only to stand for a read under way: replaced by what is due once the read is stored. */
    let standing = false;
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
    // Rule 15: the trail's entries reach R2 before the record may end.
    if (audit.owed) await audit.export();
    if (!this.#moves.busy && !audit.owed && (await end.deleteIfDue(rec, clock.now(), () => !this.#moves.busy))) return;
    try {
      // Unless an operation of this incarnation is in flight (it settles the record itself), or a call an earlier
      // incarnation noted may still be running (an alarm set for something else fired first: the next is set for then).
      const look = reconciler.needsReconcile(rec) || lateReads.isDue(rec) || fiscal.isDue(rec) || this.#moves.expiryDue();
      if (!this.#moves.busy && look && !writeAhead.mayStillRun(rec, clock.now())) {
        // Rule 14's read leaves no note: while it is under way an alarm stands for it, so an incarnation that stops before it stored the answer reads again.
        if (fiscal.isDue(rec)) {
          alarm.set(writeAhead.deadline(clock.now()));
          standing = true;
        }
        await this.#moves.reconcileAlone();
      }
      // Draining takes no lock: an operation may run meanwhile and add events; only the drained ones are marked sent.
      await outbox.drain();
      await audit.export();
      // The fiscal list follows the record: a write owed (or one whose mark was lost) is written now.
      await fiscal.sync();
    } catch (err) {
      log("error", "receipt_alarm_failed", { id: rec.id, kind: rec.kind, error: err instanceof Error ? err.message : String(err) });
    } finally {
      // What waited for the row's next write (a drain's mark) waits no longer than the alarm.
      store.writeDeferred();
      this.arm({ drainNow: false, replace: standing });
    }
  }

  /**
   * After every operation and alarm: events still owed are drained at once,
   * in the background (nobody's answer waits for them), and whatever is owed
   * has an alarm, so an eviction or a crash before the drain loses nothing.
   * An alarm already due early enough is left alone. A drain's mark waits
   * for the row's next write only while an alarm due soon would write it.
   * `replace`: the alarm set is one that stood for a read now stored, not
   * for anything due: it is set anew. `late`: a new alarm is set as late as
   * every window allows, not when the first is due (a create's: its drain
   * and its tid completion are done at once, the alarm only backs them up,
   * so it comes when the trail's export is due, and the authorize and the
   * pay that follow within it, 15 s and 25 s at the model's pace, ride it
   * rather than setting one of their own, src/record/write-ahead.ts).
   */
  arm({ drainNow = true, replace = false, late = false }: { drainNow?: boolean; replace?: boolean; late?: boolean } = {}): void {
    const { store, alarm, completion, end, reconciler, outbox, expiry, fiscal, audit } = this.#parts;
    const rec = store.current;
    if (!rec) return;
    const now = clock.now();
    // Rule 12's expiry and rule 14's fiscal reads are more looks: the earliest of them.
    const reconcileAt = earliest(earliest(reconciler.nextAt(rec, now), expiry.dueAt(rec, reconciler.phase(rec), now)), fiscal.dueAt(rec, now));
    const drain = earliestDue(earliestDue(outbox.dueAt(now), audit.dueAt(now)), completion.dueAt(rec));
    const listing = fiscal.listingDueAt(now);
    // A completion owed keeps the record from its end: deleting it would forget the claim.
    const deleteAt = completion.owed(rec) === null ? end.deleteAt(rec) : null;
    const due = Math.min(reconcileAt ?? Infinity, drain?.at ?? Infinity, listing?.at ?? Infinity, deleteAt ?? Infinity);
    const latest = Math.min(reconcileAt ?? Infinity, drain?.latest ?? Infinity, listing?.latest ?? Infinity);
    if (due === Infinity) alarm.set(null);
    else if (replace || !alarm.setWithin(now, latest)) alarm.set(late ? Math.min(latest, deleteAt ?? Infinity) : due);
    if (store.owesWrite && !alarm.setWithin(now, now + MARK_WAIT_MS)) store.writeDeferred();
    // The events are drained at once; the trail's entries (rule 15) wait for the alarm (audit.dueAt), unless their hold is over.
    const exportNow = audit.ready(now);
    if (drainNow && (outbox.ready || exportNow))
      void Promise.all([outbox.ready ? outbox.drain() : null, exportNow ? audit.export() : null]).then(() => this.arm({ drainNow: false }));
    // The fiscal list is written after the answer, as events are drained: nobody's answer waits for D1.
    if (drainNow && fiscal.ready) void fiscal.sync().then(() => this.arm({ drainNow: false }));
  }
}

/** The earlier of two dues (with their latest), either of which may be none. */
const earliestDue = (a: { at: number; latest: number } | null, b: { at: number; latest: number } | null) =>
  a === null ? b : b === null ? a : { at: Math.min(a.at, b.at), latest: Math.min(a.latest, b.latest) };

/** The earlier of two times, either of which may be none. */
const earliest = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.min(a, b));
