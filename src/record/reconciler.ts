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
  exhaustionCancelPending,
  isPaid,
  lateReadAt,
  needsSettling,
  nextReconcileAt,
  type Phase,
  phaseOf,
  STATE,
  STATE_CHANGING_CALLS,
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
    return kindOf(rec.kind).cancellable && rec.qr_merchant === 0 && rec.edge_closed === 0;
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
    const lostCancel = store.current!.pending_op === "cancel";
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
    if (lostCancel && store.current!.state !== STATE.cancelled) await this.#finishCancel(upstream, requestId);
    if (this.#exhaustionCancelPending(store.current!)) await this.finishExhaustion(upstream, requestId);
    // Still waiting (57, a cancel not through yet): back off further; settled: start afresh next time.
    store.update({ reconcile_attempts: this.needsReconcile(store.current!) ? rec.reconcile_attempts + 1 : 0 });
    return { ok: true, value: undefined };
  }

  /**
   * A cancel whose answer was lost, and that the upstream does not show done:
   * the gateway sends it again, as its caller asked, so that it is settled now.
   * Otherwise the lost one could still land later, on a receipt paid in the
   * meantime, and refund it (a user's cancel of a paid receipt, rule 8). A
   * refusal for good (QR merchant, no access) ends it; a busy answer or a
   * lost one leaves the note, and the alarm tries again.
   */
  async #finishCancel(upstream: UpstreamClient, requestId: string): Promise<void> {
    const { store, recorder, writeAhead } = this.#parts;
    const rec = store.current!;
    const result = await writeAhead.around("cancel", false, requestId, () =>
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
   * (a state-changing call, so write-ahead too). A transfer has no cancel
   * upstream: it stays closed at the edge. If the cancel does not go
   * through, the alarm tries again.
   */
  async finishExhaustion(upstream: UpstreamClient, requestId: string): Promise<void> {
    const { store, recorder, writeAhead } = this.#parts;
    const rec = store.current!;
    if (!this.#exhaustionCancelPending(rec) || rec.pending_op) return;
    const result = await writeAhead.around("exhaustion-cancel", false, requestId, () =>
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
