/**
 * An operator's point-in-time restore of one record (the route is
 * src/operations/restore.ts; docs/production.md, "Backups and restore"). A Durable
 * Object with SQLite storage keeps 30 days of history, and its storage API
 * restores it to a bookmark when the object next starts. So a restore is
 * two steps around a restart of the object:
 *
 * 1. `prepare`, in the object as it is: the bookmark for the time; what the
 *    record counted until now that must survive the restore (the carry);
 *    unless it is a dry run, the restore scheduled for the object's next
 *    start, whose answer is the bookmark that undoes it, and the object
 *    frozen until then (no operation and no alarm reaches the upstream
 *    whose outcome the restore would forget). The caller then restarts the
 *    object (ReceiptObject.restart: ctx.abort).
 * 2. `settle`, in the restarted object, its storage as it was at that time:
 *    what must not go back is carried over in one change (the next event's
 *    sequence stays above every event already sent, since receivers ignore
 *    one not above the last they applied; rules 2 and 6's OTP guesses and
 *    sends; an erasure made since, rule 10), with the restore in the audit
 *    trail; then one look at the upstream, which stores a change the record
 *    was restored away from and emits it again, as a new event.
 *
 * A runtime without point-in-time recovery (workerd in development and the
 * tests) fails step 1 with a failure that says so; nothing is scheduled.
 */

import { fail, type Outcome } from "../errors/errors";
import { clock } from "../shared/clock";
import { log } from "../shared/log";
import { eraseRecord } from "./erase";
import type { Moves } from "./move";
import type { LedgerCounts } from "./otp-ledger";
import type { RecordParts } from "./parts";
import type { RecordRow } from "./store";

/** How far back a Durable Object's storage can be restored. */
export const PITR_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

export interface RestoreRequest {
  /** Milliseconds since the epoch: the time to restore to. */
  at: number;
  requestId: string;
  /** Only the bookmarks: nothing is scheduled. */
  dryRun: boolean;
}

/** What the record counted until the restore that must not go back with it (null: no record before the restore). */
export type Carry = LedgerCounts & Pick<RecordRow, "event_seq" | "erased" | "state">;

export interface RestorePlan {
  /** The bookmark the object is restored to. */
  bookmark: string;
  /** The bookmark that undoes the restore (a dry run: the one now). */
  undoBookmark: string;
  carry: Carry | null;
}

/** What step 2 is told of step 1. */
export interface RestoreNote extends RestorePlan {
  at: number;
  requestId: string;
}

export interface RestoredRecord {
  /** False: the object holds no record at that time (it was created after it). */
  present: boolean;
  state: number | null;
  /** The last event's sequence now. */
  sequence: number | null;
  /** The look at the upstream after the restore: "ok", or the error code it failed with (it is then left to the alarm and the next caller). */
  upstream: string | null;
}

const carryOf = (rec: RecordRow): Carry => ({
  event_seq: rec.event_seq,
  erased: rec.erased,
  state: rec.state,
  wrong_otps: rec.wrong_otps,
  unconfirmed_otps: rec.unconfirmed_otps,
  otp_sends: rec.otp_sends,
  last_otp_sent_at: rec.last_otp_sent_at,
  edge_closed: rec.edge_closed,
});

/** The storage API refused: the runtime has no point-in-time recovery, or the time is outside its window. */
function unavailable(err: unknown): Outcome<never> {
  const reason = err instanceof Error ? err.message : String(err);
  return fail(
    "not_ready",
    `Point-in-time recovery of this Durable Object is not available: ${reason} Records are restored only on Cloudflare, to a time within the last 30 days; nothing was scheduled.`,
  );
}

export class RecordRestore {
  readonly #storage: DurableObjectStorage;
  readonly #parts: RecordParts;
  readonly #moves: Moves;

  constructor(storage: DurableObjectStorage, parts: RecordParts, moves: Moves) {
    this.#storage = storage;
    this.#parts = parts;
    this.#moves = moves;
  }

  /** Step 1 (this module's header). */
  async prepare(request: RestoreRequest): Promise<Outcome<RestorePlan>> {
    // An operation in flight would settle into storage the restore then forgets, after its upstream call.
    if (this.#moves.busy) return fail("operation_in_progress", "An operation on this record is in flight; retry the restore in a few seconds.");
    const rec = this.#parts.store.load();
    // Before its creation the object held nothing: a restore there would lose a record the upstream still has.
    if (rec && request.at < rec.created_at) {
      const message = `at is before this ${rec.kind} was created (${new Date(rec.created_at).toISOString()}): restored there, it would hold nothing.`;
      return fail("invalid_request", message, { details: [{ path: "at", message: "at must not be before the record was created" }] });
    }
    let bookmark: string;
    try {
      bookmark = await this.#storage.getBookmarkForTime(request.at);
    } catch (err) {
      return unavailable(err);
    }
    const carry = rec ? carryOf(rec) : null;
    if (request.dryRun) return { ok: true, value: { bookmark, undoBookmark: await this.#storage.getCurrentBookmark(), carry } };
    let undoBookmark: string;
    try {
      undoBookmark = await this.#storage.onNextSessionRestoreBookmark(bookmark);
    } catch (err) {
      return unavailable(err);
    }
    this.#moves.freeze();
    log("warn", "record_restore_scheduled", {
      kind: rec?.kind,
      id: rec?.id,
      at: request.at,
      bookmark,
      undo_bookmark: undoBookmark,
      request_id: request.requestId,
    });
    return { ok: true, value: { bookmark, undoBookmark, carry } };
  }

  /** Step 2 (this module's header), in the restarted object. */
  async complete(note: RestoreNote): Promise<RestoredRecord> {
    const { store, outbox, ledger } = this.#parts;
    const rec = store.load();
    const fields = { at: note.at, bookmark: note.bookmark, undo_bookmark: note.undoBookmark, request_id: note.requestId };
    if (!rec) {
      log("warn", "record_restored", { ...fields, present: false, state_before: note.carry?.state ?? null });
      return { present: false, state: null, sequence: null, upstream: null };
    }
    const carry = note.carry;
    store.change(() => {
      if (carry) {
        outbox.continueAfter(carry.event_seq);
        ledger.carry(carry);
        // Rule 10: an erasure made after the time restored to is made again.
        if (carry.erased === 1 && store.current!.erased === 0) eraseRecord(this.#parts);
      }
      store.trail.add({ at: clock.now(), op: "restore", actor: "operator", request_id: note.requestId, outcome: "ok" });
    });
    const looked = await this.#moves.catchUp(note.requestId);
    const after = store.current!;
    const upstream = looked.ok ? "ok" : looked.error.code;
    log("warn", "record_restored", {
      ...fields,
      kind: after.kind,
      id: after.id,
      present: true,
      state_before: carry?.state ?? null,
      state_restored: rec.state,
      state: after.state,
      upstream,
    });
    return { present: true, state: after.state, sequence: after.event_seq, upstream };
  }
}
