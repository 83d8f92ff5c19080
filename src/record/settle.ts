/**
 * The money move's last steps, shared by requests and by the gateway's own
 * steps (src/record/move.ts): note and call, settle in one change, and the
 * finishing moves a look or a call leaves owed: completing a cancel whose
 * answer was lost, and rule 2's exhaustion cancel, each decided by the
 * lifecycle table for the caller it acts for.
 */
import { clock } from "../clock";
import type { Failure } from "../errors";
import type { RecordBody } from "../kinds";
import {
  type CallerKind,
  type ExpiryOutcome,
  type ExpiryReason,
  expiryOutcomeOf,
  expiryRuleOf,
  GUESS_LIMIT_WORD,
  type OtpVerdict,
  otpVerdictOf,
  STATE,
  upstreamPhase,
} from "../lifecycle";
import { log } from "../log";
import type { AuthorizeBody } from "../schemas";
import type { UpstreamResult } from "../upstream/calls";
import type { UpstreamClient } from "../upstream/client";
import type { RecordParts } from "./parts";
import { callerKindOf, type LostCancel } from "./reconciler";
import { CANCEL, type MoveSpec } from "./specs";
import type { Note } from "./write-ahead";

const LOST_CANCEL = { reason: "a cancel whose answer was lost, completed by the gateway" };
const EXHAUSTION_CANCEL = { reason: `${GUESS_LIMIT_WORD.toLowerCase()} failed OTP guesses`, cancelledBy: "gateway" };
/** What the upstream is told of rule 12's cancel. */
const EXPIRY_CANCEL: Record<ExpiryReason, { reason: string; cancelledBy: string }> = {
  expired: { reason: "expired unpaid", cancelledBy: "gateway" },
  hold_expired: { reason: "hold not confirmed in time", cancelledBy: "gateway" },
};

/** What a call settled to: the answer's JSON text, or the failure with the OTP's verdict. */
export type Settled = { ok: true; value: string } | { ok: false; error: Failure; verdict: OtpVerdict | null };

export class Settlement {
  readonly #parts: RecordParts;

  constructor(parts: RecordParts) {
    this.#parts = parts;
  }

  /** Note, then call: the write-ahead note, naming who asked, is durable before the call leaves (rule 8). */
  call<I, T>(spec: MoveSpec<I, T>, upstream: UpstreamClient, input: I, note: Note, otp: string | undefined): Promise<UpstreamResult<T>> {
    const { store, writeAhead } = this.#parts;
    return writeAhead.around(note, () => spec.call(upstream, store.current!, input, otp));
  }

  /**
   * Settle in one change: the note cleared, the OTP's verdict counted (the
   * third failed guess exhausts the record, with its event), the record and
   * the event its change is; `then` adds to that change what the settled
   * outcome decides (the operation's audit entry). An unknown outcome of a
   * state-changing call stores nothing: the note stays for the reconciler.
   */
  settle<T>(spec: MoveSpec<never, T>, result: UpstreamResult<T>, withOtp: boolean, requestId: string, then?: (settled: Settled) => void) {
    const { store } = this.#parts;
    if (!result.ok && result.outcome === "unknown" && spec.settles === "state") return { ok: false, error: result.failure, verdict: null } as Settled;
    const verdict = withOtp ? otpVerdictOf(result.ok ? result : { ...result, code: result.failure.code }) : null;
    return store.change((): Settled => {
      const settled = this.#settled(spec, result, verdict, requestId);
      then?.(settled);
      return settled;
    });
  }

  #settled<T>(spec: MoveSpec<never, T>, result: UpstreamResult<T>, verdict: OtpVerdict | null, requestId: string): Settled {
    const { store, writeAhead, ledger, recorder } = this.#parts;
    writeAhead.clear();
    if (spec.settles === "send" && (result.ok || result.outcome === "unknown")) {
      ledger.countSend(result.ok ? (result.value as AuthorizeBody).wait : undefined);
    }
    if (verdict) ledger.count(verdict, requestId, !result.ok && result.failure.code === "otp_attempts_exhausted");
    if (!result.ok) {
      recorder.applyAfter(result, requestId);
      return { ok: false, error: result.failure, verdict };
    }
    if (spec.settles === "send") return { ok: true, value: recorder.answerOf(result.value as AuthorizeBody) };
    recorder.apply(result.value as RecordBody, requestId);
    return { ok: true, value: recorder.answerOf({ ...(result.value as RecordBody), tid: store.current!.tid }) };
  }

  /** The answer to a refused OTP: how many guesses are left, and why an unknown refusal counted. */
  explained(error: Failure, verdict: OtpVerdict | null): Failure {
    const { ledger } = this.#parts;
    if (error.code === "otp_invalid") {
      const { upstream_code } = error;
      return { code: "otp_invalid", message: "The OTP is wrong.", attempts_left: ledger.attemptsLeft(), ...(upstream_code ? { upstream_code } : {}) };
    }
    if (verdict === "unconfirmed") {
      // The payment service may have judged the OTP before refusing in words the gateway does not know.
      const said = error.message.replace(/ Nothing was done\.$/, "");
      return {
        ...error,
        message: `${said} Nothing was paid, but the OTP counts as a guess: the payment service may have judged it.`,
        attempts_left: ledger.attemptsLeft(),
      };
    }
    return error;
  }

  /**
   * Finish: completing a cancel whose answer was lost is deciding that cancel
   * again, for the caller who asked, in the phase the upstream now shows: a
   * user's cancel of a receipt paid or held meanwhile is refused and audited
   * (the partner learns the state from its event); a partner's goes on, as
   * the refund it asked for. A busy or lost answer leaves the note: the
   * alarm completes it again. Otherwise the lost one could still land later.
   */
  async completeLostCancel(upstream: UpstreamClient, requestId: string, lost: LostCancel): Promise<void> {
    const { store, reconciler } = this.#parts;
    const rec = store.current!;
    const decision = reconciler.decide("cancel", callerKindOf(lost.actor), true);
    if (decision.do !== "call") {
      const outcome = decision.do === "refuse" ? decision.code : "operation_in_progress";
      store.audit({ at: clock.now(), op: "cancel", actor: lost.actor ?? "user:unknown", request_id: lost.requestId ?? requestId, outcome });
      log("warn", "lost_cancel_refused", { id: rec.id, kind: rec.kind, state: rec.state, code: outcome, request_id: lost.requestId });
      return;
    }
    const result = await this.call(CANCEL, upstream, LOST_CANCEL, { op: "cancel", actor: lost.actor, requestId, withOtp: false }, undefined);
    if (!result.ok && (result.outcome === "unknown" || result.failure.code === "upstream_unavailable")) return;
    this.settle(CANCEL, result, false, requestId);
  }

  /**
   * Finish: three failed guesses on a receipt the upstream cancels, still
   * unpaid there: the gateway's own cancel (caller `gateway`, a user's rights:
   * it never refunds). A busy answer is tried again by the alarm; a refusal
   * for good (no access) closes the record at the edge.
   */
  async exhaustionCancel(upstream: UpstreamClient, requestId: string): Promise<void> {
    const { store, reconciler, ledger } = this.#parts;
    const rec = store.current!;
    if (!reconciler.exhaustionCancelPending(rec) || rec.pending_op) return;
    const gateway: CallerKind = "gateway";
    if (reconciler.decide("cancel", gateway, true, { phase: upstreamPhase(rec.state) }).do !== "call") return;
    const note: Note = { op: "exhaustion-cancel", actor: gateway, requestId, withOtp: false };
    const result = await this.call(CANCEL, upstream, EXHAUSTION_CANCEL, note, undefined);
    if (!result.ok && result.outcome === "unknown") return;
    store.change(() => {
      this.settle(CANCEL, result, false, requestId);
      if (!result.ok && result.failure.code !== "upstream_unavailable" && store.current!.state !== STATE.cancelled) {
        ledger.cancelRefused();
        log("warn", "exhaustion_cancel_refused", { id: rec.id, upstream_code: result.failure.upstream_code, code: result.failure.code });
      }
    });
  }

  /**
   * Finish: rule 12's expiry, after the look (a late pay is stored as paid, a
   * cancel as cancelled, and nothing expires then). A record still in a state
   * that expires, past its window, is ended as the gateway: a transfer closed
   * at the edge; a receipt cancelled upstream as any cancel is (the cancel
   * table decides for caller `gateway`, then the write-ahead note, then the
   * call), or closed at the edge where the table or the upstream refuses it
   * for good. A busy upstream decides nothing (the alarm tries again); a lost
   * answer leaves the note for rule 8's reconciliation, never a second call.
   * Null when nothing was due; else what became of it, with the failure a
   * request meets when nothing was decided.
   */
  async expire(upstream: UpstreamClient, requestId: string): Promise<{ outcome: ExpiryOutcome; failure?: Failure } | null> {
    const { store, reconciler, expiry } = this.#parts;
    const rec = store.current!;
    if (rec.pending_op || !expiry.isDue(rec, reconciler.phase(rec), clock.now())) return null;
    const rule = expiryRuleOf(rec.kind, rec.state);
    if (!rule) return null;
    const reason = rec.expiry ?? rule.reason;
    const gateway: CallerKind = "gateway";
    const decision =
      rule.ends === "cancel" ? reconciler.decide("cancel", gateway, true, { phase: upstreamPhase(rec.state), expiring: reason }) : null;
    if (decision?.do !== "call") {
      store.change(() => expiry.closeAtEdge(reason, requestId, false));
      return { outcome: "edge" };
    }
    store.change(() => expiry.decide(reason));
    const note: Note = { op: "expiry-cancel", actor: gateway, requestId, withOtp: false };
    const result = await this.call(CANCEL, upstream, EXPIRY_CANCEL[reason], note, undefined);
    if (!result.ok && result.outcome === "unknown") return { outcome: "unknown", failure: result.failure };
    return store.change(() => {
      // A refusal is not the gateway's cancel: whatever the upstream shows instead (paid, cancelled by another) is its own change.
      if (!result.ok) expiry.undecide();
      this.settle(CANCEL, result, false, requestId);
      const after = store.current!;
      const outcome = expiryOutcomeOf(result.ok ? result : { ...result, code: result.failure.code }, expiryRuleOf(after.kind, after.state) !== null);
      if (outcome === "edge") {
        expiry.closeAtEdge(reason, requestId, true);
        log("warn", "expiry_cancel_refused", { id: rec.id, upstream_code: result.ok ? undefined : result.failure.upstream_code });
      }
      return result.ok || outcome === "edge" ? { outcome } : { outcome, failure: result.failure };
    });
  }
}
