/**
 * Rule 8's late upstream: a call whose outcome was unknown may still act
 * upstream long after the gateway stopped waiting, so the record stays
 * suspect after its first reconciliation and is read again on a schedule
 * (src/rules/schedule.ts LATE_READ_SCHEDULES). This part owns that suspicion: when
 * the call left, how many late reads are done, and whether its OTP was
 * counted as an unconfirmed guess that a late payment would prove right.
 */

import { isPaid, type UpstreamState } from "../rules/lifecycle";
import { lateReadAt, lateReadsDoneAt } from "../rules/schedule";
import { clock } from "../shared/clock";
import type { RecordRow, RecordStore, Slice } from "./store";

export const LATE_READ_COLUMNS = ["suspect_since", "suspect_reads", "suspect_otp"] as const;

export class LateReads {
  readonly #store: RecordStore;
  readonly #slice: Slice<(typeof LATE_READ_COLUMNS)[number]>;
  readonly #schedule: readonly number[];

  constructor(store: RecordStore, schedule: readonly number[]) {
    this.#store = store;
    this.#slice = store.slice("late-reads", LATE_READ_COLUMNS);
    this.#schedule = schedule;
  }

  /** A call that left at `since` has an unknown outcome: read again on the schedule. Inside a change. */
  suspect(since: number, unconfirmedOtp: boolean): void {
    this.#slice.update({ suspect_since: since, suspect_reads: 0, suspect_otp: unconfirmedOtp ? 1 : 0 });
  }

  isSuspect(rec: RecordRow = this.#store.current!): boolean {
    return rec.suspect_since !== 0;
  }

  /** When the next late read is due, or null. */
  dueAt(rec: RecordRow = this.#store.current!): number | null {
    return lateReadAt({ since: rec.suspect_since, reads: rec.suspect_reads }, this.#schedule);
  }

  isDue(rec: RecordRow, now = clock.now()): boolean {
    const at = this.dueAt(rec);
    return at !== null && at <= now;
  }

  /**
   * A look at the upstream, which showed `state`, counts as every late read
   * due by now. Answers whether an OTP counted as an unconfirmed guess is
   * proven right (the record shows paid): the ledger then no longer counts it.
   * Inside a change.
   */
  looked(state: UpstreamState): boolean {
    const rec = this.#store.current!;
    if (rec.suspect_since === 0) return false;
    const done = lateReadsDoneAt({ since: rec.suspect_since, reads: rec.suspect_reads }, this.#schedule, clock.now());
    const proven = rec.suspect_otp === 1 && isPaid(state);
    this.#slice.update({ suspect_since: done.since, suspect_reads: done.reads, suspect_otp: proven || done.since === 0 ? 0 : rec.suspect_otp });
    return proven;
  }
}
