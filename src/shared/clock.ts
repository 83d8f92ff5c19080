/**
 * The gateway's clock. Everything that decides by time (write-ahead notes,
 * reconciliation and late-read schedules, OTP resend waits, rule 12's
 * expiry, rule 14's fiscal reads, rule 10's end, events) reads it, never
 * Date.now() directly, so a test can let time pass without waiting and
 * without writing into anyone's storage: the tests run in the same isolate
 * as the Durable Objects they drive and share this module
 * (test/helpers.ts letTimePass; reset after every test). In a deployment
 * nothing moves it: it is Date.now().
 *
 * A record has a time of its own on top of it (the sandbox's test clocks:
 * docs/testing-your-app.md): its object runs every call and its alarm inside
 * `inRecordTime` with the offset stored in its row, so each of its rules
 * reads that record's time through `clock.now()`, and no other record's time
 * moves. Production never stores an offset other than 0. `clock.shared()` is
 * the deployment's time for what many records share (event ids and the event
 * log's schedule), whatever record's call writes it.
 */
import { AsyncLocalStorage } from "node:async_hooks";

let offsetMs = 0;
/** For tests: the wall clock's reading when it was frozen (freezeClock), else null and Date.now() moves on. */
let frozenAt: number | null = null;
const wall = (): number => frozenAt ?? Date.now();
const recordTime = new AsyncLocalStorage<number>();

export const clock = {
  /** The time of the record whose call this is (its offset added), else the deployment's. */
  now: (): number => wall() + offsetMs + (recordTime.getStore() ?? 0),
  /** The deployment's time, whichever record's call reads it. */
  shared: (): number => wall() + offsetMs,
  /** How far the record whose call this is runs ahead of the deployment (0 outside a record's call). */
  recordOffset: (): number => recordTime.getStore() ?? 0,
};

/** Runs `work` in a record's own time: `clock.now()` reads `offset` ms ahead of the deployment's, inside it and whatever it awaits. */
export function inRecordTime<T>(offset: number, work: () => T): T {
  return recordTime.run(offset, work);
}

/** For tests: time passes by `ms` for everything that reads the clock. */
export function advanceClock(ms: number): void {
  offsetMs += ms;
}

/**
 * For tests whose rule compares two moments a few seconds apart (a call's deadline against an alarm): time stands
 * still but for letTimePass, so a loaded machine's slowness is not taken for time passing.
 */
export function freezeClock(): void {
  frozenAt = Date.now();
}

/** For tests: back to the wall clock. */
export function resetClock(): void {
  offsetMs = 0;
  frozenAt = null;
}
