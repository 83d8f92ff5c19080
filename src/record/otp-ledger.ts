/**
 * A record's OTP ledger (rules 2 and 6): the guesses that failed (wrong, or
 * unconfirmed: the upstream may have judged them), and the OTPs sent. What
 * counts is decided by src/rules/lifecycle.ts; this part keeps the counts in the
 * record's row and writes the exhaustion event in the step that exhausts it.
 */

import { type Failure, fail } from "../errors/errors";
import { metric } from "../metrics/metrics";
import { countGuess, exhaustedEvent, type GuessCounts, guessesOf, MAX_GUESSES, type OtpVerdict, otpSendRefusal } from "../rules/lifecycle";
import { clock } from "../shared/clock";
import { note } from "../shared/log";
import type { Outbox } from "./outbox";
import type { RecordRow, RecordStore, Slice } from "./store";

/**
 * The ledger's columns: guesses, sends, and whether the upstream refused for
 * good to cancel the record its guesses ended (then closed at the edge).
 */
export const LEDGER_COLUMNS = ["wrong_otps", "unconfirmed_otps", "otp_sends", "last_otp_sent_at", "resend_wait_ms", "edge_closed"] as const;

/** What the ledger counted: what a restore carries over (src/record/restore.ts). */
export type LedgerCounts = Pick<RecordRow, "wrong_otps" | "unconfirmed_otps" | "otp_sends" | "last_otp_sent_at" | "edge_closed">;

export class OtpLedger {
  readonly #store: RecordStore;
  readonly #slice: Slice<(typeof LEDGER_COLUMNS)[number]>;
  readonly #outbox: Outbox;
  readonly #env: Env;

  constructor(store: RecordStore, outbox: Outbox, env: Env) {
    this.#store = store;
    this.#slice = store.slice("otp-ledger", LEDGER_COLUMNS);
    this.#outbox = outbox;
    this.#env = env;
  }

  counts(rec: RecordRow = this.#store.current!): GuessCounts {
    return { wrong: rec.wrong_otps, unconfirmed: rec.unconfirmed_otps };
  }

  guesses(rec: RecordRow = this.#store.current!): number {
    return guessesOf(this.counts(rec));
  }

  attemptsLeft(): number {
    return Math.max(0, MAX_GUESSES - this.guesses());
  }

  /** Counts one OTP's verdict; the third failed guess exhausts the record and is an event. Inside a change. */
  count(verdict: OtpVerdict, requestId: string, upstreamSaysExhausted = false): void {
    const rec = this.#store.current!;
    const before = this.counts(rec);
    let counts = countGuess(before, verdict);
    // The upstream itself says the guesses are used up: believe it (never fewer than three).
    if (upstreamSaysExhausted && guessesOf(counts) < MAX_GUESSES) counts = { ...counts, wrong: MAX_GUESSES - counts.unconfirmed };
    this.#slice.update({ wrong_otps: counts.wrong, unconfirmed_otps: counts.unconfirmed });
    if (guessesOf(before) < MAX_GUESSES && guessesOf(counts) >= MAX_GUESSES) {
      this.#outbox.emit(exhaustedEvent(rec.kind), rec.state, requestId);
      note("warn", "otp_attempts_exhausted", { id: rec.id, kind: rec.kind, wrong: counts.wrong, unconfirmed: counts.unconfirmed });
      metric(this.#env, "otp_exhausted", { operation: rec.kind });
    }
  }

  /** An unconfirmed guess turned out right (the record shows paid): it no longer counts. Inside a change. */
  provenRight(): void {
    const rec = this.#store.current!;
    this.#slice.update({ unconfirmed_otps: Math.max(0, rec.unconfirmed_otps - 1) });
  }

  /** The upstream refused for good to cancel the record its guesses ended: no more cancels are sent; it is closed at the edge. Inside a change. */
  cancelRefused(): void {
    this.#slice.update({ edge_closed: 1 });
  }

  /** Why no OTP may be sent now (rule 6), or null. */
  sendRefusal(now: number): Failure | null {
    const rec = this.#store.current!;
    const refusal = otpSendRefusal({ sends: rec.otp_sends, lastSentAt: rec.last_otp_sent_at, waitMs: rec.resend_wait_ms }, now);
    return refusal ? fail(refusal.code, refusal.message, { retry_after: refusal.retryAfterSeconds }).error : null;
  }

  /** An OTP was sent (or may have been: an unknown outcome may have sent an SMS). Inside a change. */
  countSend(wait: number | undefined): void {
    const rec = this.#store.current!;
    this.#slice.update({
      otp_sends: rec.otp_sends + 1,
      last_otp_sent_at: clock.now(),
      resend_wait_ms: wait ?? Math.max(rec.resend_wait_ms, 60_000),
    });
  }

  /**
   * A restored record keeps the guesses and sends counted since the time it
   * was restored to (rules 2 and 6 hold across a restore), and a cancel the
   * upstream refused for good: each the larger of the two. Inside a change.
   */
  carry(counted: LedgerCounts): void {
    const rec = this.#store.current!;
    this.#slice.update({
      wrong_otps: Math.max(rec.wrong_otps, counted.wrong_otps),
      unconfirmed_otps: Math.max(rec.unconfirmed_otps, counted.unconfirmed_otps),
      otp_sends: Math.max(rec.otp_sends, counted.otp_sends),
      last_otp_sent_at: Math.max(rec.last_otp_sent_at, counted.last_otp_sent_at),
      edge_closed: Math.max(rec.edge_closed, counted.edge_closed),
    });
  }
}
