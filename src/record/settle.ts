/**
 * The money move's last steps, shared by requests and by the gateway's own
 * steps (src/record/move.ts): note and call, settle in one change, and the
 * one cancel a look or a call leaves owed (gatewayCancel): completing a
 * cancel whose answer was lost, rule 2's exhaustion cancel, or rule 12's
 * expiry, decided by the lifecycle table for the caller it acts for.
 */

import type { Failure } from "../errors/errors";
import {
  type CallerKind,
  type ExpiryReason,
  expiryRuleOf,
  GUESS_LIMIT_WORD,
  type OtpVerdict,
  otpVerdictOf,
  STATE,
  upstreamBusy,
  upstreamPhase,
} from "../rules/lifecycle";
import { clock } from "../shared/clock";
import { log } from "../shared/log";
import type { UpstreamClient } from "../upstream/client";
import type { RecordParts } from "./parts";
import { callerKindOf, type LostCancel } from "./reconciler";
import { CANCEL, type Called } from "./specs";
import type { Note } from "./write-ahead";

/** Who the gateway's own steps are decided for, and named as in notes and the trail. */
const GATEWAY = "gateway" satisfies CallerKind;
/** What the upstream is told of each gateway cancel; `cancelledBy` is the deployment's configured name (GATEWAY_CANCELLED_BY). */
const LOST_CANCEL_REASON = "a cancel whose answer was lost, completed by the gateway";
const EXHAUSTION_CANCEL_REASON = `${GUESS_LIMIT_WORD.toLowerCase()} failed OTP guesses`;
const EXPIRY_CANCEL_REASON: Record<ExpiryReason, string> = {
  expired: "expired unpaid",
  hold_expired: "hold not confirmed in time",
};

/** A request's entry in the record's trail, but for its outcome (which settling decides) and its time. */
export type TrailEntry = { op: string; actor: string; request_id: string };

/** What a call settled to: the answer's JSON text, or the failure with the OTP's verdict. */
export type Settled = { ok: true; value: string } | { ok: false; error: Failure; verdict: OtpVerdict | null };

export class Settlement {
  readonly #parts: RecordParts;
  /** The name the gateway's own cancels tell the upstream (GATEWAY_CANCELLED_BY). */
  readonly #cancelledBy: string;

  constructor(parts: RecordParts, cancelledBy: string) {
    this.#parts = parts;
    this.#cancelledBy = cancelledBy;
  }

  /**
   * Settle and audit in one change: the note cleared, the OTP's verdict
   * counted (the third failed guess exhausts the record, with its event),
   * the record and the event its change is, and the request's entry in the
   * trail, given as data (`audit`) and completed with the outcome: rule 2's
   * third failed guess as the otp_attempts_exhausted it is answered. An
   * unknown outcome of a state-changing call stores nothing else: the note
   * stays for the reconciler.
   */
  settle(called: Called, withOtp: boolean, requestId: string, audit?: TrailEntry): Settled {
    const { store, reconciler } = this.#parts;
    return store.change((): Settled => {
      const settled = this.#settledOrKept(called, withOtp, requestId);
      if (!audit) return settled;
      const exhausted = withOtp && reconciler.phase() === "exhausted";
      store.trail.add({ ...audit, at: clock.now(), outcome: exhausted ? "otp_attempts_exhausted" : settled.ok ? "ok" : settled.error.code });
      return settled;
    });
  }

  #settledOrKept(called: Called, withOtp: boolean, requestId: string): Settled {
    const { result } = called;
    if (!result.ok && result.outcome === "unknown" && called.settles === "state") return { ok: false, error: result.failure, verdict: null };
    const verdict = withOtp ? otpVerdictOf(result.ok ? result : { ...result, code: result.failure.code }) : null;
    return this.#settled(called, verdict, requestId);
  }

  #settled(called: Called, verdict: OtpVerdict | null, requestId: string): Settled {
    const { store, writeAhead, ledger, recorder } = this.#parts;
    writeAhead.clear();
    if (called.settles === "send" && (called.result.ok || called.result.outcome === "unknown")) {
      ledger.countSend(called.result.ok ? called.result.value.wait : undefined);
    }
    if (verdict) ledger.count(verdict, requestId, !called.result.ok && called.result.failure.code === "otp_attempts_exhausted");
    if (!called.result.ok) {
      recorder.applyAfter(called.result, requestId);
      return { ok: false, error: called.result.failure, verdict };
    }
    if (called.settles === "send") return { ok: true, value: recorder.answerOf(called.result.value) };
    recorder.apply(called.result.value, requestId);
    return { ok: true, value: recorder.answerOf({ ...called.result.value, tid: store.current!.tid }) };
  }

  /** The answer to a refused OTP: how many guesses are left. */
  explained(error: Failure, verdict: OtpVerdict | null): Failure {
    const { ledger } = this.#parts;
    if (error.code === "otp_invalid") {
      const { upstream_code } = error;
      return { code: "otp_invalid", message: "The OTP is wrong.", attempts_left: ledger.attemptsLeft(), ...(upstream_code ? { upstream_code } : {}) };
    }
    // The refusal's message says the OTP counts as a guess (src/upstream/client.ts): the answer adds how many are left.
    if (verdict === "unconfirmed") return { ...error, attempts_left: ledger.attemptsLeft() };
    return error;
  }

  /**
   * The gateway's own cancel, one path for its three reasons (rules 2, 8
   * and 12), taken after a look at the upstream, as a request's money move
   * is, in straight steps:
   *
   *   load -> what is owed, and for whom (a caller's cancel whose answer was
   *   lost, for that caller; rule 2's exhaustion cancel, or rule 12's expiry,
   *   for `gateway`) -> decide once (the lifecycle table, in the phase the
   *   look showed) -> note and call (rule 8's write-ahead note under
   *   `cancel`, so a lost one is suspect and read late like a caller's) ->
   *   settle and audit in one change -> finish.
   *
   * Every reason meets an answer the same way. Unknown: the note stays for
   * the reconciler's look (which then owes the same cancel again, or finds
   * it done). Busy (the upstream did nothing): the record is as it was
   * before the call, the lost note included, and the alarm tries again with
   * backoff. A refusal for good of the gateway's own cancel closes the
   * record at the edge. Null when no cancel is owed.
   */
  async gatewayCancel(upstream: UpstreamClient, requestId: string, lost: LostCancel | null, ended?: () => void): Promise<GatewayCancelled | null> {
    const { store, reconciler, expiry, writeAhead, ledger } = this.#parts;
    // Load: a call whose outcome is unknown is settled by a look first, never by another call.
    const rec = store.current!;
    if (rec.pending_op) return null;
    // What is owed, and for whom; and what the look that called ends with, in the settling change.
    const found = this.#owed(lost);
    if (!found) return null;
    const owed: Owed = { ...found, ended };
    // Decide once, in the phase the look showed.
    const decision =
      owed.ends === "cancel"
        ? reconciler.decide("cancel", owed.caller, true, { phase: upstreamPhase(rec.state), expiring: owed.expiring ?? undefined })
        : null;
    if (decision?.do !== "call") {
      return store.change(() => {
        if (owed.expiring) {
          expiry.closeAtEdge(owed.expiring, requestId, false);
          return this.#audited(owed, requestId, { outcome: "edge" });
        }
        const outcome = decision?.do === "refuse" ? decision.code : "operation_in_progress";
        log("warn", "gateway_cancel_refused", { id: rec.id, kind: rec.kind, state: rec.state, code: outcome, request_id: owed.lost?.requestId });
        return this.#audited(owed, requestId, { outcome: "refused", code: outcome });
      });
    }
    // Note and call: rule 12's decision is stored with the note, so a lost cancel is owed again, for the expiry that acted.
    const note: Note = { op: CANCEL.operation, actor: owed.actor, requestId, withOtp: false };
    await writeAhead.note(note, owed.expiring ? () => expiry.mark(owed.expiring!) : undefined);
    const result = await CANCEL.call(upstream, store.current!, owed.words, undefined);
    // Settle and audit in one change.
    if (!result.ok && result.outcome === "unknown") {
      return store.change(() => this.#audited(owed, requestId, { outcome: "unknown", failure: result.failure }));
    }
    return store.change((): GatewayCancelled => {
      if (!result.ok && upstreamBusy(result.failure.code)) {
        writeAhead.clear();
        if (owed.lost) writeAhead.restore(owed.lost);
        if (owed.expiring) expiry.unmark();
        return this.#audited(owed, requestId, { outcome: "retry", failure: result.failure });
      }
      // A refusal is not the gateway's cancel: whatever the upstream shows instead (paid, cancelled by another) is its own change.
      if (!result.ok && owed.expiring) expiry.unmark();
      this.settle({ settles: CANCEL.settles, operation: CANCEL.operation, result }, false, requestId);
      if (result.ok) return this.#audited(owed, requestId, { outcome: "ended" });
      if (owed.caller !== GATEWAY) return this.#audited(owed, requestId, { outcome: "refused", code: result.failure.code });
      // Finish: the gateway's own cancel refused for good (no cancel access) while still owed closes the record at the edge.
      const after = store.current!;
      const stillOwed = owed.expiring ? expiryRuleOf(after.kind, after.state) !== null : reconciler.exhaustionCancelPending(after);
      if (!stillOwed) return this.#audited(owed, requestId, { outcome: "ended" });
      if (owed.expiring) expiry.closeAtEdge(owed.expiring, requestId, true);
      else ledger.cancelRefused();
      log("warn", "gateway_cancel_refused", { id: rec.id, kind: rec.kind, upstream_code: result.failure.upstream_code, code: result.failure.code });
      return this.#audited(owed, requestId, { outcome: "edge" });
    });
  }

  /**
   * What cancel the record owes now, and for whom (after a look): a
   * caller's cancel whose answer was lost, for that caller (a user's never
   * refunds); else the gateway's own, for rule 2's exhausted guesses or
   * rule 12's expiry. A lost cancel of the gateway's own is owed again by
   * its reason, not by its note: by the guesses, or by the expiry decided,
   * whose mark is cleared when the upstream shows a state it does not end
   * (a late pay held or paid), so a hold is released later as
   * `hold_expired` and a refund is never announced as an expiry.
   */
  #owed(lost: LostCancel | null): Owed | null {
    const { store, reconciler, expiry } = this.#parts;
    const rec = store.current!;
    if (lost && lost.actor !== GATEWAY && rec.state !== STATE.cancelled) {
      const caller = callerKindOf(lost.actor);
      return {
        caller,
        actor: lost.actor,
        lost,
        ends: "cancel",
        expiring: null,
        words: { reason: LOST_CANCEL_REASON, cancelledBy: this.#cancelledBy },
      };
    }
    const gateway = { caller: GATEWAY, actor: GATEWAY, lost: null } as const;
    if (reconciler.exhaustionCancelPending(rec)) {
      return { ...gateway, ends: "cancel", expiring: null, words: { reason: EXHAUSTION_CANCEL_REASON, cancelledBy: this.#cancelledBy } };
    }
    const rule = expiryRuleOf(rec.kind, rec.state);
    if (rec.expiry !== null && rec.state !== STATE.cancelled && rule?.reason !== rec.expiry) store.change(() => expiry.unmark());
    const now = store.current!;
    if (!rule || !expiry.isDue(now, reconciler.phase(now), clock.now())) return null;
    return {
      ...gateway,
      ends: rule.ends,
      expiring: rule.reason,
      words: { reason: EXPIRY_CANCEL_REASON[rule.reason], cancelledBy: this.#cancelledBy },
    };
  }

  /** The gateway's cancel in the record's trail, in the settling change: rule 12's as `expire`, a lost cancel's refusal under its caller. */
  #audited(owed: Owed, requestId: string, cancelled: GatewayCancelled & { code?: string }): GatewayCancelled {
    const { store } = this.#parts;
    if (owed.expiring) store.trail.add({ at: clock.now(), op: "expire", actor: GATEWAY, request_id: requestId, outcome: cancelled.outcome });
    else if (owed.lost && cancelled.outcome === "refused") {
      store.trail.add({
        at: clock.now(),
        op: "cancel",
        actor: owed.lost.actor ?? "user:unknown",
        request_id: owed.lost.requestId ?? requestId,
        outcome: cancelled.code!,
      });
    }
    // The look ends here unless the upstream was too busy (then it failed, and is audited so after it).
    if (cancelled.outcome !== "retry") owed.ended?.();
    return { outcome: cancelled.outcome, ...(cancelled.failure ? { failure: cancelled.failure } : {}) };
  }
}

/** A cancel the record owes, decided for whom and told to the upstream how. */
interface Owed {
  /** Who the lifecycle table decides it for. */
  caller: CallerKind;
  /** Who the note and the trail name: the lost cancel's caller, or the gateway. */
  actor: string | null;
  /** The caller's cancel whose answer was lost, being completed. */
  lost: LostCancel | null;
  /** Rule 12's expiry that acts, if it is one. */
  expiring: ExpiryReason | null;
  /** `edge`: closed at the edge without a call (a transfer). */
  ends: "cancel" | "edge";
  words: { reason: string; cancelledBy: string };
  /** The caller's own part of the settling change once the cancel is decided (a look's trail entry), unless the upstream was busy. */
  ended?: () => void;
}

/**
 * What the gateway's own cancel (rule 12's expiry, rule 2's exhaustion, a
 * lost cancel completed: gatewayCancel) came to:
 * - `ended`: the upstream shows the record cancelled, or changed otherwise
 *   (a late pay): the record is as the upstream shows it;
 * - `retry`: nothing was decided (busy, unavailable: upstreamBusy): the
 *   alarm tries again;
 * - `unknown`: the answer was lost: rule 8's reconciliation reads it;
 * - `edge`: refused for good (no cancel access, a QR merchant the table
 *   refuses): closed at the edge, and its event says so.
 */
type GatewayCancelOutcome = "ended" | "retry" | "unknown" | "edge";

/** What the gateway's cancel came to, or `refused` by the table or the upstream. */
export interface GatewayCancelled {
  outcome: GatewayCancelOutcome | "refused";
  /** What a request meets when nothing was decided (busy, unknown). */
  failure?: Failure;
}
