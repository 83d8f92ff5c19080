/**
 * What the upstream showed of a record, stored: its body and state, the
 * event a change of state is, and what the look means for a record suspect
 * of a late change (rule 8). Every method runs inside a change.
 */

import { clock } from "../clock";
import { kindOf, type RecordBody } from "../kinds";
import { eventForStateChange, isPaid, lateReadsDoneAt, type UpstreamState } from "../lifecycle";
import { erasePersonal } from "../redact";
import type { ReceiptBody, ReducedReceiptBody, TransferBody } from "../schemas";
import type { OtpLedger } from "./otp-ledger";
import type { Outbox } from "./outbox";
import type { RecordStore } from "./store";

export class Recorder {
  readonly #store: RecordStore;
  readonly #outbox: Outbox;
  readonly #ledger: OtpLedger;
  readonly #lateReads: readonly number[];

  constructor(store: RecordStore, outbox: Outbox, ledger: OtpLedger, lateReads: readonly number[]) {
    this.#store = store;
    this.#outbox = outbox;
    this.#ledger = ledger;
    this.#lateReads = lateReads;
  }

  /**
   * Stores a body the upstream answered: the new state and, if the state
   * changed, its event. A reduced (anonymous) answer is merged into the
   * stored body.
   */
  apply(body: RecordBody | ReducedReceiptBody, requestId: string, merged = this.merged(body)): void {
    const rec = this.#store.current!;
    const previous = rec.state;
    const state = body.state as UpstreamState;
    this.#store.update({ state, body: merged });
    if (rec.suspect_since !== 0) this.#lateRead(state);
    const type = eventForStateChange(rec.kind, previous, state);
    if (type) this.#outbox.emit(type, previous, requestId);
  }

  /** Stores the record a refusal came with, if the upstream sent it. */
  applyAfter(failure: { receipt?: ReceiptBody; transfer?: TransferBody }, requestId: string): void {
    const body = kindOf(this.#store.current!.kind).bodyOf(failure);
    if (body) this.apply(body, requestId);
  }

  /** The stored body with an upstream answer laid over it (a reduced one lacks fields), showing the caller's tid: JSON text. */
  merged(body: RecordBody | ReducedReceiptBody): string {
    const rec = this.#store.current!;
    const stored = this.#store.parsedBody<RecordBody>();
    const laid = kindOf(rec.kind).withTid({ ...stored, ...body } as RecordBody, rec.tid);
    // Erased once (rule 10), erased for good: the upstream's answers still carry the user's values.
    return JSON.stringify(rec.erased === 1 ? erasePersonal(laid) : laid);
  }

  /**
   * A look at the upstream counts as every late read due by now. An OTP whose
   * call was lost and counted as an unconfirmed guess is no guess once the
   * record shows paid: it was right.
   */
  #lateRead(state: UpstreamState): void {
    const rec = this.#store.current!;
    const done = lateReadsDoneAt({ since: rec.suspect_since, reads: rec.suspect_reads }, this.#lateReads, clock.now());
    const proven = rec.suspect_otp === 1 && isPaid(state);
    if (proven) this.#ledger.provenRight();
    this.#store.update({ suspect_since: done.since, suspect_reads: done.reads, suspect_otp: proven || done.since === 0 ? 0 : rec.suspect_otp });
  }
}
