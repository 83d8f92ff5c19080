/**
 * The gateway's clock. Everything that decides by time (write-ahead notes,
 * reconciliation and late-read schedules, OTP resend waits, events) reads
 * it, never Date.now() directly, so a test can let time pass without
 * waiting and without writing into anyone's storage: the tests run in the
 * same isolate as the Durable Objects they drive and share this module
 * (test/helpers.ts letTimePass; reset after every test). In a deployment
 * nothing moves it: it is Date.now().
 */
let offsetMs = 0;

export const clock = {
  now: (): number => Date.now() + offsetMs,
};

/** For tests: time passes by `ms` for everything that reads the clock. */
export function advanceClock(ms: number): void {
  offsetMs += ms;
}

/** For tests: back to the wall clock. */
export function resetClock(): void {
  offsetMs = 0;
}
