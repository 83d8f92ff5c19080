/**
 * Rule 8's reconciliation: a record whose call's outcome is unknown,
 * awaiting its supplier (57), owed an exhaustion cancel, or suspect of a
 * late change upstream is read from the upstream and stored; the schedule of
 * those looks is src/lifecycle.ts's. Also finishes rule 2: three failed
 * guesses on a receipt the upstream cancels send that cancel.
 */

import { clock } from "../clock";
import type { Outcome } from "../errors";
import { kindOf } from "../kinds";
import {
  type CallerKind,
  closedAtEdge,
  type Decision,
  type DecisionContext,
  decide,
  exhaustionCancelPending,
  guessesOf,
  isPaid,
  lateReadAt,
  needsSettling,
  nextReconcileAt,
  type Operation,
  type Phase,
  phaseOf,
  STATE,
  STATE_CHANGING_CALLS,
  upstreamCancels,
  upstreamPhase,
} from "../lifecycle";
import { log } from "../log";
import type { UpstreamClient } from "../upstream/client";
import type { OtpLedger } from "./otp-ledger";
import type { Recorder } from "./recorder";
import type { RecordRow, RecordStore } from "./store";
import type { WriteAhead } from "./write-ahead";

export interface ReconcilerParts {
  store: RecordStore;
  ledger: OtpLedger;
  recorder: Recorder;
  writeAhead: WriteAhead;
  upstreamTimeoutMs: number;
  lateReads: readonly number[];
  /** The deployment's hold function (a fact the lifecycle table decides on). */
  holdEnabled: boolean;
}

/** Whether the upstream cancels this record when its guesses run out (lifecycle's upstreamCancels). */
export const upstreamCancelsOf = (rec: RecordRow): boolean =>
  upstreamCancels({ kind: rec.kind, qrMerchant: rec.qr_merchant === 1, cancelRefused: rec.edge_closed === 1 });

/** Closed at the edge (lifecycle's closedAtEdge): the one definition every part reads. */
export const closedAtEdgeOf = (rec: RecordRow): boolean =>
  closedAtEdge({ guesses: guessesOf({ wrong: rec.wrong_otps, unconfirmed: rec.unconfirmed_otps }), upstreamCancels: upstreamCancelsOf(rec) });

/** Who a stored actor ("partner:<id>", "user:<sub>", "gateway") is, for the lifecycle table; an unknown one is decided as a user: never a refund. */
export const callerKindOf = (actor: string | null): CallerKind =>
  actor?.startsWith("partner:") ? "partner" : actor === "gateway" ? "gateway" : "user";

/** A call whose answer was lost, as its note said: who asked, and in which request. */
interface LostCall {
  actor: string | null;
  requestId: string | null;
}

export class Reconciler {
  readonly #parts: ReconcilerParts;

  constructor(parts: ReconcilerParts) {
    this.#parts = parts;
  }

  phase(rec: RecordRow = this.#parts.store.current!): Phase {
    return phaseOf({ state: rec.state, pending: rec.pending_op !== null, guesses: this.#parts.ledger.guesses(rec) });
  }

  /** Whether the upstream cancels this record when guesses run out: not a transfer, a QR merchant's receipt, or one it refused to. */
  upstreamCancels(rec: RecordRow = this.#parts.store.current!): boolean {
    return upstreamCancelsOf(rec);
  }

  /** The facts of the record the lifecycle table decides on, for a caller of this kind. */
  context(caller: CallerKind, fresh: boolean, rec: RecordRow = this.#parts.store.current!): DecisionContext {
    return {
      kind: rec.kind,
      caller,
      isHold: rec.is_hold === 1,
      qrMerchant: rec.qr_merchant === 1,
      holdEnabled: this.#parts.holdEnabled,
      fresh,
      suspect: rec.suspect_since !== 0,
    };
  }

  /**
   * The lifecycle table's decision on `operation` for `caller`: what a request
   * gets, and what every step the gateway takes on someone's behalf must get
   * too before it calls the upstream (a lost cancel completed, the exhaustion
   * cancel).
   */
  decide(operation: Operation, caller: CallerKind, fresh: boolean, phase: Phase = this.phase()): Decision {
    return decide(operation, phase, this.context(caller, fresh));
  }

  /** Only the upstream can settle the record now (lifecycle's needsSettling). */
  needsReconcile(rec: RecordRow): boolean {
    return needsSettling(this.#facts(rec));
  }

  /** A late read of a suspect record is due. */
  lateReadDue(rec: RecordRow, now = clock.now()): boolean {
    const at = lateReadAt({ since: rec.suspect_since, reads: rec.suspect_reads }, this.#parts.lateReads);
    return at !== null && at <= now;
  }

  /** When the alarm should next look at the upstream, or null. */
  nextAt(rec: RecordRow, now: number): number | null {
    return nextReconcileAt(
      { ...this.#facts(rec), lateReadAt: lateReadAt({ since: rec.suspect_since, reads: rec.suspect_reads }, this.#parts.lateReads) },
      now,
    );
  }

  #facts(rec: RecordRow) {
    return {
      phase: this.phase(rec),
      exhaustionCancelPending: this.#exhaustionCancelPending(rec),
      attempts: rec.reconcile_attempts,
      pendingSince: rec.pending_since,
      upstreamTimeoutMs: this.#parts.upstreamTimeoutMs,
    };
  }

  #exhaustionCancelPending(rec: RecordRow): boolean {
    return exhaustionCancelPending({ guesses: this.#parts.ledger.guesses(rec), state: rec.state, upstreamCancels: this.upstreamCancels(rec) });
  }

  /**
   * Asks the upstream how the record stands and stores it. A note of a call
   * whose outcome was lost is settled from what the upstream shows: an OTP
   * sent in it counts as an unconfirmed guess unless the record got paid, and
   * a lost call that could change the state leaves the record suspect.
   */
  async reconcile(upstream: UpstreamClient, requestId: string): Promise<Outcome<void>> {
    const { store, ledger, recorder, writeAhead } = this.#parts;
    const rec = store.current!;
    const result = await kindOf(rec.kind).read(upstream, rec.id);
    if (!result.ok) {
      store.update({ reconcile_attempts: rec.reconcile_attempts + 1 });
      log("warn", "reconcile_failed", {
        id: rec.id,
        kind: rec.kind,
        pending_op: rec.pending_op,
        attempts: rec.reconcile_attempts + 1,
        code: result.failure.code,
        upstream_code: result.failure.upstream_code,
      });
      return { ok: false, error: result.failure };
    }
    const noted = store.current!;
    const lostCancel: LostCall | null = noted.pending_op === "cancel" ? { actor: noted.pending_actor, requestId: noted.pending_request_id } : null;
    store.change(() => {
      const pending = store.current!;
      if (pending.pending_op !== null) {
        const paid = isPaid(kindOf(rec.kind).stateOf(result.value));
        if (pending.pending_otp === 1) ledger.count(paid ? "accepted" : "unconfirmed", requestId);
        // An authorize lost to a crash may have sent an SMS.
        if (pending.pending_op === "authorize") ledger.countSend(undefined);
        // The upstream may still act on the lost call: read again later (rule 8's late upstream).
        if (STATE_CHANGING_CALLS.has(pending.pending_op)) {
          store.update({ suspect_since: pending.pending_since, suspect_reads: 0, suspect_otp: pending.pending_otp === 1 && !paid ? 1 : 0 });
        }
        writeAhead.clear();
      }
      recorder.apply(result.value, requestId);
    });
    if (lostCancel && store.current!.state !== STATE.cancelled) await this.#finishCancel(upstream, requestId, lostCancel);
    if (this.#exhaustionCancelPending(store.current!)) await this.finishExhaustion(upstream, requestId);
    // Still waiting (57, a cancel not through yet): back off further; settled: start afresh next time.
    store.update({ reconcile_attempts: this.needsReconcile(store.current!) ? rec.reconcile_attempts + 1 : 0 });
    return { ok: true, value: undefined };
  }

  /**
   * A cancel whose answer was lost, and that the upstream does not show done:
   * the gateway completes it, so that it is settled now. Otherwise the lost
   * one could still land later, on a receipt paid in the meantime, and refund
   * it (a user's cancel of a paid receipt, rule 8). Completing it is deciding
   * that cancel again, for the caller who asked, in the phase the upstream now
   * shows: a user's cancel of a receipt paid or held meanwhile is refused and
   * the refusal audited (the partner learns the state from its event); a
   * partner's goes on, as the refund it asked for. A refusal for good (QR
   * merchant, no access) ends it; a busy answer or a lost one leaves the
   * note, and the alarm tries again.
   */
  async #finishCancel(upstream: UpstreamClient, requestId: string, lost: LostCall): Promise<void> {
    const { store, recorder, writeAhead } = this.#parts;
    const rec = store.current!;
    const decision = this.decide("cancel", callerKindOf(lost.actor), true);
    if (decision.do !== "call") {
      const outcome = decision.do === "refuse" ? decision.code : "operation_in_progress";
      store.audit({ at: clock.now(), op: "cancel", actor: lost.actor ?? "user:unknown", request_id: lost.requestId ?? requestId, outcome });
      log("warn", "lost_cancel_refused", { id: rec.id, kind: rec.kind, state: rec.state, code: outcome, request_id: lost.requestId });
      return;
    }
    const result = await writeAhead.around({ op: "cancel", withOtp: false, requestId, actor: lost.actor }, () =>
      upstream.cancel(rec.id, "a cancel whose answer was lost, completed by the gateway"),
    );
    if (!result.ok && (result.outcome === "unknown" || result.failure.code === "upstream_unavailable")) return;
    store.change(() => {
      writeAhead.clear();
      if (result.ok) recorder.apply(result.value, requestId);
      else recorder.applyAfter(result, requestId);
    });
  }

  /**
   * Three failed guesses on a receipt: make sure it is cancelled upstream
   * (a state-changing call, so write-ahead too), the gateway's own cancel,
   * decided by the cancel table like any other (it cancels only what the
   * upstream shows unpaid). A transfer has no cancel upstream: it stays closed
   * at the edge. If the cancel does not go through, the alarm tries again.
   */
  async finishExhaustion(upstream: UpstreamClient, requestId: string): Promise<void> {
    const { store, recorder, writeAhead } = this.#parts;
    const rec = store.current!;
    if (!this.#exhaustionCancelPending(rec) || rec.pending_op) return;
    if (this.decide("cancel", "gateway", true, upstreamPhase(rec.state)).do !== "call") return;
    const result = await writeAhead.around({ op: "exhaustion-cancel", withOtp: false, requestId, actor: "gateway" }, () =>
      upstream.cancel(rec.id, "three failed OTP guesses", "gateway"),
    );
    if (!result.ok && result.outcome === "unknown") return;
    store.change(() => {
      writeAhead.clear();
      if (result.ok) {
        recorder.apply(result.value, requestId);
        return;
      }
      recorder.applyAfter(result, requestId);
      // Busy: try again later. Any other refusal is for good (e.g. no access to cancel): stop asking.
      if (result.failure.code !== "upstream_unavailable" && store.current!.state !== STATE.cancelled) {
        store.update({ edge_closed: 1 });
        log("warn", "exhaustion_cancel_refused", { id: rec.id, upstream_code: result.failure.upstream_code, code: result.failure.code });
      }
    });
  }
}
