/**
 * Rule 8's reconciliation, the looking half: a record whose call's outcome is
 * unknown, awaiting its supplier (57), owed an exhaustion cancel, or suspect
 * of a late change upstream is read from the upstream and stored; a lost
 * note is settled from what the upstream shows. It moves no money itself:
 * what a look leaves owed (a lost cancel to complete, rule 2's exhaustion
 * cancel) is handed back to the money move (src/record/move.ts), which
 * decides it by the same table as a request. Also the table's facts about
 * a record (its phase, its decision context) and a plain read (check-id).
 */

import type { Failure, Outcome } from "../errors/errors";
import { metric } from "../metrics/metrics";
import { kindNamed } from "../rules/kinds";
import {
  asksForLook,
  type CallerKind,
  closedAtEdge,
  type Decision,
  type DecisionContext,
  decide,
  type ExpiryReason,
  exhaustedMessage,
  exhaustionCancelPending,
  guessesOf,
  isPaid,
  type Operation,
  type Phase,
  phaseOf,
  upstreamCancels,
} from "../rules/lifecycle";
import { needsSettling, nextReconcileAt, STATE_CHANGING_CALLS } from "../rules/schedule";
import { clock } from "../shared/clock";
import { keepLine, log } from "../shared/log";
import type { UpstreamClient } from "../upstream/client";
import type { FiscalWatch } from "./fiscal";
import type { LateReads } from "./late-reads";
import type { OtpLedger } from "./otp-ledger";
import type { Recorder } from "./recorder";
import type { RecordRow, RecordStore, Slice } from "./store";
import type { WriteAhead } from "./write-ahead";

export interface ReconcilerParts {
  store: RecordStore;
  ledger: OtpLedger;
  recorder: Recorder;
  writeAhead: WriteAhead;
  lateReads: LateReads;
  fiscal: FiscalWatch;
  upstreamTimeoutMs: number;
  /** The deployment's hold function (a fact the lifecycle table decides on). */
  holdEnabled: boolean;
  /** Where the looks are counted (src/metrics/metrics.ts). */
  env: Env;
}

/** Whether the upstream cancels this record when its guesses run out (lifecycle's upstreamCancels). */
export const upstreamCancelsOf = (rec: RecordRow): boolean =>
  upstreamCancels({ kind: rec.kind, qrMerchant: rec.qr_merchant === 1, cancelRefused: rec.edge_closed === 1 });

const guessCountsOf = (rec: RecordRow) => ({ wrong: rec.wrong_otps, unconfirmed: rec.unconfirmed_otps });

/** Closed at the edge (lifecycle's closedAtEdge): the one definition every part reads. */
export const closedAtEdgeOf = (rec: RecordRow): boolean =>
  closedAtEdge({ guesses: guessesOf(guessCountsOf(rec)), expired: rec.expiry !== null, upstreamCancels: upstreamCancelsOf(rec) });

/** Who a stored actor ("partner:<id>", "user:<sub>", "gateway") is, for the lifecycle table; an unknown one is decided as a user: never a refund. */
export const callerKindOf = (actor: string | null): CallerKind =>
  actor?.startsWith("partner:") ? "partner" : actor === "gateway" ? "gateway" : "user";

/** A cancel whose answer was lost, as its note said: who asked, in which request, and when it left. */
export interface LostCancel {
  actor: string | null;
  requestId: string | null;
  since: number;
}

/**
 * The note's operation as rule 8 reads it: the gateway's own cancels are
 * noted as `cancel` (by the `gateway`); a note an earlier release wrote
 * under its own names for them is the same cancel.
 */
const notedOp = (op: string | null): string | null => (op === "expiry-cancel" || op === "exhaustion-cancel" ? "cancel" : op);

export class Reconciler {
  readonly #parts: ReconcilerParts;
  /** Reconciliation attempts that failed in a row (the alarm's backoff): this part's column. */
  readonly #attempts: Slice<"reconcile_attempts">;

  constructor(parts: ReconcilerParts) {
    this.#parts = parts;
    this.#attempts = parts.store.slice("reconciler", ["reconcile_attempts"]);
  }

  phase(rec: RecordRow = this.#parts.store.current!): Phase {
    return phaseOf({ state: rec.state, pending: rec.pending_op !== null, guesses: this.#parts.ledger.guesses(rec), expired: rec.expiry !== null });
  }

  /** The facts of the record the lifecycle table decides on, for a caller of this kind. */
  context(caller: CallerKind, fresh: boolean, otpMissing = false, rec: RecordRow = this.#parts.store.current!): DecisionContext {
    return {
      kind: rec.kind,
      caller,
      isHold: rec.is_hold === 1,
      qrMerchant: rec.qr_merchant === 1,
      holdEnabled: this.#parts.holdEnabled,
      fresh,
      suspect: this.#parts.lateReads.isSuspect(rec),
      otpMissing,
      guesses: guessCountsOf(rec),
      closedAtEdge: closedAtEdgeOf(rec),
    };
  }

  /**
   * The lifecycle table's decision on `operation` for `caller`: what a request
   * gets, and what every step the gateway takes on someone's behalf gets too
   * before it calls the upstream (a lost cancel completed, the exhaustion
   * cancel, in the phase the upstream showed).
   */
  decide(
    operation: Operation,
    caller: CallerKind,
    fresh: boolean,
    options: { phase?: Phase; otpMissing?: boolean; expiring?: ExpiryReason } = {},
  ): Decision {
    const ctx = this.context(caller, fresh, options.otpMissing);
    return decide(operation, options.phase ?? this.phase(), options.expiring ? { ...ctx, expiring: options.expiring } : ctx);
  }

  /** The table asks for a fresh look at the upstream before it decides (lifecycle's asksForLook). */
  asksForLook(operation: Operation, caller: CallerKind, options: { otpMissing?: boolean } = {}): boolean {
    return asksForLook(operation, this.phase(), this.context(caller, false, options.otpMissing));
  }

  /** The refusal of a record whose guesses ran out, whole (the table's). */
  exhausted(caller: CallerKind): Failure {
    const decision = this.decide("pay", caller, true, { phase: "exhausted" });
    if (decision.do === "refuse") return { code: decision.code, message: decision.message };
    // The table's exhausted row refuses every caller; reaching here would be a table without it.
    const rec = this.#parts.store.current!;
    return { code: "otp_attempts_exhausted", message: exhaustedMessage(rec.kind, guessCountsOf(rec), closedAtEdgeOf(rec)) };
  }

  /** Three failed guesses on a receipt the upstream cancels, still unpaid upstream: the gateway's own cancel is owed. */
  exhaustionCancelPending(rec: RecordRow = this.#parts.store.current!): boolean {
    return exhaustionCancelPending({
      guesses: this.#parts.ledger.guesses(rec),
      state: rec.state,
      upstreamCancels: upstreamCancelsOf(rec),
      suspect: this.#parts.lateReads.isSuspect(rec),
    });
  }

  /** Only the upstream can settle the record now (lifecycle's needsSettling). */
  needsReconcile(rec: RecordRow): boolean {
    return needsSettling(this.#facts(rec));
  }

  /** When the alarm should next look at the upstream, or null. */
  nextAt(rec: RecordRow, now: number): number | null {
    return nextReconcileAt({ ...this.#facts(rec), lateReadAt: this.#parts.lateReads.dueAt(rec) }, now);
  }

  #facts(rec: RecordRow) {
    return {
      phase: this.phase(rec),
      exhaustionCancelPending: this.exhaustionCancelPending(rec),
      attempts: rec.reconcile_attempts,
      pendingSince: rec.pending_since,
      upstreamTimeoutMs: this.#parts.upstreamTimeoutMs,
    };
  }

  /**
   * Asks the upstream how the record stands and stores it. A note of a call
   * whose outcome was lost is settled from what the upstream shows: an OTP
   * sent in it counts as an unconfirmed guess unless the record got paid, an
   * authorize may have sent an SMS, and a lost call that could change the
   * state leaves the record suspect. Answers the cancel whose answer was
   * lost, if the note was one: the move completes it, or refuses it.
   */
  async look(upstream: UpstreamClient, requestId: string): Promise<Outcome<LostCancel | null>> {
    const { store, ledger, recorder, writeAhead, lateReads } = this.#parts;
    const rec = store.current!;
    // A look is the gateway's own doing (rule 8's reconciliation, a late read, rule 14's fiscal read, rule 12's expiry
    // before its cancel all go through it): its line is always written, whatever the upstream shows.
    keepLine();
    const result = await kindNamed(rec.kind).read(upstream, rec.id);
    if (!result.ok) {
      this.#attempts.update({ reconcile_attempts: rec.reconcile_attempts + 1 });
      // Failed looks in a row: the on-call's sign that a record stays unsettled (docs/alerts.md).
      metric(this.#parts.env, "reconciliation", { operation: rec.kind, outcome: "failed", attempts: rec.reconcile_attempts + 1 });
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
    const op = notedOp(noted.pending_op);
    const lost: LostCancel | null =
      op === "cancel" ? { actor: noted.pending_actor, requestId: noted.pending_request_id, since: noted.pending_since } : null;
    store.change(() => {
      if (noted.pending_op !== null) {
        const paid = isPaid(kindNamed(rec.kind).stateOf(result.value));
        if (noted.pending_otp === 1) ledger.count(paid ? "accepted" : "unconfirmed", requestId);
        // An authorize lost to a crash may have sent an SMS.
        if (noted.pending_op === "authorize") ledger.countSend(undefined);
        // The upstream may still act on the lost call: read again later (rule 8's late upstream).
        if (op !== null && STATE_CHANGING_CALLS.has(op)) lateReads.suspect(noted.pending_since, noted.pending_otp === 1 && !paid);
        writeAhead.clear();
      }
      recorder.apply(result.value, requestId);
    });
    metric(this.#parts.env, "reconciliation", { operation: rec.kind, outcome: "ok", attempts: rec.reconcile_attempts });
    // Suspect since this look: a lost call that may still act upstream.
    const since = store.current!.suspect_since;
    if (since !== 0 && since !== noted.suspect_since) metric(this.#parts.env, "record_suspect", { operation: rec.kind });
    return { ok: true, value: lost };
  }

  /**
   * After a look and what it left owed: still waiting (57, a cancel not
   * through yet, or `owed`: an expiry's cancel the upstream was too busy for)
   * backs off further; settled starts afresh.
   */
  countAttempt(attemptsBefore: number, owed = false): void {
    const { store } = this.#parts;
    const attempts = owed || this.needsReconcile(store.current!) ? attemptsBefore + 1 : 0;
    this.#attempts.update({ reconcile_attempts: attempts });
  }

  /**
   * check-id's plain read of a record nothing is owed for: the upstream's
   * answer laid over the stored body, stored only when it says something new
   * (or completes a late read, or a fiscal read, due), so the usual read
   * waits for no commit.
   */
  async read(upstream: UpstreamClient, requestId: string, busy: () => boolean): Promise<Outcome<string>> {
    const { store, recorder, lateReads, fiscal } = this.#parts;
    const rec = store.current!;
    const version = store.version;
    const result = await kindNamed(rec.kind).read(upstream, rec.id);
    if (!result.ok) return { ok: false, error: result.failure };
    const body = recorder.merged(result.value);
    if (version === store.version && !busy() && (body !== rec.body || lateReads.isDue(rec, clock.now()) || fiscal.isDue(rec, clock.now()))) {
      store.change(() => recorder.apply(result.value, requestId, body));
    }
    return { ok: true, value: body };
  }
}
