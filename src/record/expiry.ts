/**
 * Rule 12's part of the record: when it expires (src/rules/lifecycle.ts EXPIRY
 * says which states expire, after which window, with which reason) and the
 * expiry the gateway decided, in this part's column. The decision and the
 * cancel it leads to are the money move's (src/record/settle.ts gatewayCancel),
 * taken after a fresh look at the upstream like any other; this part only
 * keeps the time and the reason, and closes a record at the edge with the
 * event that says so.
 */

import { KINDS } from "../rules/kinds";
import { type ExpiryReason, type ExpiryWindows, expiresAt, type Phase } from "../rules/lifecycle";
import { backoffMs } from "../rules/schedule";
import { clock } from "../shared/clock";
import type { OtpLedger } from "./otp-ledger";
import type { Outbox } from "./outbox";
import { closedAtEdgeOf } from "./reconciler";
import type { RecordRow, RecordStore, Slice } from "./store";

export class Expiry {
  readonly #store: RecordStore;
  readonly #slice: Slice<"expiry">;
  readonly #outbox: Outbox;
  readonly #ledger: OtpLedger;
  readonly #windows: ExpiryWindows;

  constructor(store: RecordStore, outbox: Outbox, ledger: OtpLedger, windows: ExpiryWindows) {
    this.#store = store;
    this.#slice = store.slice("expiry", ["expiry"]);
    this.#outbox = outbox;
    this.#ledger = ledger;
    this.#windows = windows;
  }

  /**
   * When the record expires (or the cancel of an expiry decided is owed
   * again), or null: what the alarm is set for. A cancel the upstream was too
   * busy for is tried again with the reconciler's backoff.
   */
  dueAt(rec: RecordRow, phase: Phase, now: number): number | null {
    const at = this.#expiresAt(rec, phase);
    if (at === null) return null;
    return rec.reconcile_attempts > 0 ? Math.max(at, now + backoffMs(rec.reconcile_attempts)) : at;
  }

  /** Past its window: the alarm (whenever it fires) or the next operation expires it. */
  isDue(rec: RecordRow, phase: Phase, now: number): boolean {
    const at = this.#expiresAt(rec, phase);
    return at !== null && at <= now;
  }

  #expiresAt(rec: RecordRow, phase: Phase): number | null {
    return expiresAt(
      {
        kind: rec.kind,
        phase,
        state: rec.state,
        expiry: rec.expiry,
        edgeClosed: closedAtEdgeOf(rec),
        createdAt: rec.created_at,
        // A record held before the gateway kept the time (none since schema 2) counts from its creation.
        heldAt: rec.held_at || rec.created_at,
        suspect: rec.suspect_since !== 0,
      },
      this.#windows,
    );
  }

  /** The gateway decided to end the record for this reason; its cancel is about to leave. Inside a change. */
  mark(reason: ExpiryReason): void {
    this.#slice.update({ expiry: reason });
  }

  /** Nothing was decided after all (the upstream was busy, or refused because it changed meanwhile). Inside a change. */
  unmark(): void {
    this.#slice.update({ expiry: null });
  }

  /**
   * Closes the record at the edge (lifecycle's closedAtEdge): a transfer (no
   * cancel upstream), or a receipt whose cancel the upstream refused for good
   * (`refused`) or the table refuses (a QR merchant). Its event says so: the
   * object shows what the upstream shows, for the partner to ask its support.
   * Inside a change.
   */
  closeAtEdge(reason: ExpiryReason, requestId: string, refused: boolean): void {
    const rec = this.#store.current!;
    this.#slice.update({ expiry: reason });
    if (refused) this.#ledger.cancelRefused();
    this.#outbox.emit(KINDS[rec.kind].events.expiredAtEdge, rec.state, requestId, clock.now(), { reason, closed_at_edge: true });
  }
}
