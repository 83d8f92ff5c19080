/**
 * What a call that may change the record upstream returned, stored in one
 * step with its write-ahead note cleared; for an OTP-bearing call, its
 * verdict counted as rule 2 says, and the third failed guess ends the record
 * at once. An unknown outcome stores nothing: the note stays for the
 * reconciler.
 */
import { type Failure, fail, type Outcome } from "../errors";
import type { RecordBody } from "../kinds";
import { otpVerdictOf } from "../lifecycle";
import type { ReducedReceiptBody } from "../schemas";
import type { UpstreamClient, UpstreamResult } from "../upstream/client";
import type { OtpLedger } from "./otp-ledger";
import type { Reconciler } from "./reconciler";
import type { Recorder } from "./recorder";
import type { RecordStore } from "./store";
import type { WriteAhead } from "./write-ahead";

export interface OutcomeParts {
  store: RecordStore;
  writeAhead: WriteAhead;
  ledger: OtpLedger;
  recorder: Recorder;
  reconciler: Reconciler;
}

export class Outcomes {
  readonly #parts: OutcomeParts;

  constructor(parts: OutcomeParts) {
    this.#parts = parts;
  }

  /** The refusal of a record whose guesses ran out. */
  exhausted(): Failure {
    return this.#parts.ledger.exhausted(!this.#parts.reconciler.upstreamCancels());
  }

  /** Stores what a state-changing call (no OTP) returned. */
  settle<T extends RecordBody>(result: UpstreamResult<T>, requestId: string): Outcome<T> {
    const { store, writeAhead, recorder } = this.#parts;
    if (!result.ok && result.outcome === "unknown") return { ok: false, error: result.failure };
    return store.change(() => {
      writeAhead.clear();
      if (!result.ok) {
        recorder.applyAfter(result, requestId);
        return { ok: false, error: result.failure };
      }
      recorder.apply(result.value, requestId);
      return { ok: true, value: { ...result.value, tid: store.current!.tid } };
    });
  }

  /** Stores what a pay returned and counts its OTP. */
  async settleOtpCall<T extends RecordBody | ReducedReceiptBody>(
    result: UpstreamResult<T>,
    withOtp: boolean,
    requestId: string,
    upstream: UpstreamClient,
  ): Promise<Outcome<T>> {
    const { store, writeAhead, ledger, recorder, reconciler } = this.#parts;
    if (!result.ok && result.outcome === "unknown") return { ok: false, error: result.failure };
    const verdict = withOtp ? otpVerdictOf(result.ok ? result : { ...result, code: result.failure.code }) : null;
    const tid = store.current!.tid;
    const answer = store.change((): Outcome<T> => {
      writeAhead.clear();
      if (verdict) ledger.count(verdict, requestId, !result.ok && result.failure.code === "otp_attempts_exhausted");
      if (result.ok) {
        recorder.apply(result.value, requestId);
        return { ok: true, value: { ...result.value, tid } };
      }
      recorder.applyAfter(result, requestId);
      return { ok: false, error: result.failure };
    });
    if (reconciler.phase() === "exhausted") {
      await reconciler.finishExhaustion(upstream, requestId);
      return { ok: false, error: this.exhausted() };
    }
    if (answer.ok) return answer;
    if (answer.error.code === "otp_invalid") {
      const { upstream_code } = answer.error;
      return fail("otp_invalid", "The OTP is wrong.", { attempts_left: ledger.attemptsLeft(), ...(upstream_code ? { upstream_code } : {}) });
    }
    if (verdict === "unconfirmed") {
      // The payment service may have judged the OTP before refusing in words the gateway does not know.
      const said = answer.error.message.replace(/ Nothing was done\.$/, "");
      const message = `${said} Nothing was paid, but the OTP counts as a guess: the payment service may have judged it.`;
      return { ok: false, error: { ...answer.error, message, attempts_left: ledger.attemptsLeft() } };
    }
    return answer;
  }
}
