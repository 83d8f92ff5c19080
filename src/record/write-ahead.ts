/**
 * Rule 8's write-ahead note: before a call that may change the record
 * upstream leaves, a note of it is durably stored, with an alarm due within
 * the minute rule 8 allows (`lookBy`): one already due by then, whatever it
 * was set for, stands for the note (a row written saved), else one is set
 * for when the call must have ended at the latest. The note is cleared in
 * the same step that stores the call's outcome. A note found with no call
 * in flight means the outcome is unknown: only the upstream can say
 * (src/record/reconciler.ts).
 */

import { clock } from "../shared/clock";
import type { Alarm } from "./alarm";
import type { RecordStore, Slice } from "./store";

/** Rule 8: a receipt marked with a call in flight is reconciled on its own within a minute of the fault. */
export const RECONCILE_WITHIN_MS = 60_000;
/**
 * How late an alarm may fire after it is due (the runtime runs it within a
 * second or two, and retries a failed one from 2 s on): the margin
 * `lookBy` keeps within the minute.
 */
export const ALARM_DELAY_MS = 5_000;

/** WriteAhead.lookBy, for a deployment whose calls time out after `upstreamTimeoutMs`. */
export const noteLookBy = (now: number, upstreamTimeoutMs: number): number =>
  Math.max(now + upstreamTimeoutMs + 1000, now + RECONCILE_WITHIN_MS - upstreamTimeoutMs - ALARM_DELAY_MS);

/** The note's columns: this part's alone. */
export const WRITE_AHEAD_COLUMNS = ["pending_op", "pending_otp", "pending_since", "pending_request_id", "pending_actor"] as const;

/** What a write-ahead note says of the call about to leave. */
export interface Note {
  op: string;
  /** The call carries an OTP (a guess, should its outcome be lost). */
  withOtp: boolean;
  requestId: string;
  /** Who asked: "partner:<id>", "user:<sub>" or "gateway"; null only in notes older than the column. */
  actor: string | null;
}

export class WriteAhead {
  readonly #store: RecordStore;
  readonly #note: Slice<(typeof WRITE_AHEAD_COLUMNS)[number]>;
  readonly #storage: DurableObjectStorage;
  readonly #alarm: Alarm;
  readonly #upstreamTimeoutMs: number;
  /** When this incarnation's last note was written: a note of its own whose call has returned is no call in flight. */
  #notedAt: number | null = null;

  constructor(store: RecordStore, storage: DurableObjectStorage, alarm: Alarm, upstreamTimeoutMs: number) {
    this.#store = store;
    this.#note = store.slice("write-ahead", WRITE_AHEAD_COLUMNS);
    this.#storage = storage;
    this.#alarm = alarm;
    this.#upstreamTimeoutMs = upstreamTimeoutMs;
  }

  /**
   * Notes the call about to leave, durably: the note is written and flushed
   * before the request leaves (sync(); the output gate would hold the
   * request anyway), so a crash mid-call is reconciled with no caller. It
   * names who asked (`actor`, as the audit trail does): a lost call that the
   * gateway completes is decided again for that caller. `decided`: what
   * the caller decided before the call (rule 12's expiry), stored in the
   * note's one UPDATE (a row written, not two), so neither is durable
   * without the other.
   */
  async note(note: Note, decided?: () => void): Promise<void> {
    const now = clock.now();
    this.#notedAt = now;
    this.#store.change(() => {
      decided?.();
      this.#note.update({
        pending_op: note.op,
        pending_otp: note.withOtp ? 1 : 0,
        pending_since: now,
        pending_request_id: note.requestId,
        pending_actor: note.actor,
      });
    });
    // An alarm already due within rule 8's minute is early enough, whatever it was set for: firing before the
    // call must have ended, it sets the next for then (src/record/wake.ts); after, it looks. Only where none is
    // due by then is one set, at the deadline.
    if (!this.#alarm.setWithin(now, this.lookBy(now))) this.#alarm.set(this.deadline(now));
    await this.#storage.sync();
  }

  /**
   * The latest an alarm may be due and still reconcile a call noted at `now`
   * within rule 8's minute of a fault (a crash right after the note is the
   * earliest fault): the minute less the look's own read (up to
   * UPSTREAM_TIMEOUT_MS) and the alarm's own delay (ALARM_DELAY_MS), so
   * 45 s at production's 10 s timeout; never before the call's deadline.
   */
  lookBy(now: number): number {
    return noteLookBy(now, this.#upstreamTimeoutMs);
  }

  /** When a call that leaves at `now` must have ended, answered or not. */
  deadline(now: number): number {
    return now + this.#upstreamTimeoutMs + 1000;
  }

  /**
   * A noted call may still be running upstream: an earlier incarnation noted
   * it (and stopped) and it could not have ended on its own by now. The alarm
   * looks at the upstream only after that (an alarm due earlier, set for
   * something else, is left in place by `note`).
   */
  mayStillRun(rec: { pending_op: string | null; pending_since: number }, now: number): boolean {
    return rec.pending_op !== null && rec.pending_since !== this.#notedAt && now < rec.pending_since + this.#upstreamTimeoutMs + 1000;
  }

  /**
   * A lost cancel's completion met a busy upstream, which did nothing: its
   * note is put back as it was, so the cancel stays owed to the caller who
   * asked and the alarm completes it again. Inside a change.
   */
  restore(lost: { actor: string | null; requestId: string | null; since: number }): void {
    this.#note.update({
      pending_op: "cancel",
      pending_otp: 0,
      pending_since: lost.since,
      pending_request_id: lost.requestId,
      pending_actor: lost.actor,
    });
  }

  /** The call's outcome is being stored. Inside that change. */
  clear(): void {
    this.#note.update({ pending_op: null, pending_otp: 0, pending_since: 0, pending_request_id: null, pending_actor: null });
  }
}
