/**
 * What the upstream showed of a record, stored: its body and state (this
 * part's columns), the event a change of state is, what the look means
 * for a record suspect of a late change (rule 8), and for a receipt whose
 * fiscal data is missing (rule 14: src/record/fiscal.ts). Also the owner's
 * erasure (rule 10): bodies stored after it are erased too. Every write runs
 * inside a change.
 */

import type { ReceiptBody, ReducedReceiptBody, TransferBody } from "../api/schemas";
import { kindNamed, type RecordBody } from "../rules/kinds";
import { eventForStateChange, gatewayCause, STATE, type UpstreamState } from "../rules/lifecycle";
import { clock } from "../shared/clock";
import { erasePersonal, erasePersonalJson } from "../shared/redact";
import type { FiscalWatch } from "./fiscal";
import type { LateReads } from "./late-reads";
import type { OtpLedger } from "./otp-ledger";
import type { Outbox } from "./outbox";
import type { RecordStore, Slice } from "./store";

export const RECORDER_COLUMNS = ["state", "body", "erased", "answer", "held_at"] as const;

export class Recorder {
  readonly #store: RecordStore;
  readonly #slice: Slice<(typeof RECORDER_COLUMNS)[number]>;
  readonly #outbox: Outbox;
  readonly #ledger: OtpLedger;
  readonly #lateReads: LateReads;
  readonly #fiscal: FiscalWatch;

  constructor(store: RecordStore, outbox: Outbox, ledger: OtpLedger, lateReads: LateReads, fiscal: FiscalWatch) {
    this.#store = store;
    this.#slice = store.slice("recorder", RECORDER_COLUMNS);
    this.#outbox = outbox;
    this.#ledger = ledger;
    this.#lateReads = lateReads;
    this.#fiscal = fiscal;
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
    // Rule 12's hold window starts when the hold is first seen.
    const heldAt = state === STATE.held && previous !== STATE.held ? clock.now() : undefined;
    this.#slice.update({ state, body: merged, held_at: heldAt });
    if (this.#lateReads.looked(state)) this.#ledger.provenRight();
    const type = eventForStateChange(rec.kind, previous, state);
    if (type) this.#outbox.emit(type, previous, requestId, clock.now(), gatewayCause(rec, state));
    // Rule 14: after the state's own event, so a receipt's fiscal data shown at last comes after its payment's.
    this.#fiscal.observed(requestId);
  }

  /** Stores the record a refusal came with, if the upstream sent it. */
  applyAfter(failure: { receipt?: ReceiptBody; transfer?: TransferBody }, requestId: string): void {
    const body = kindNamed(this.#store.current!.kind).bodyOf(failure);
    if (body) this.apply(body, requestId);
  }

  /** The stored body with an upstream answer laid over it (a reduced one lacks fields), showing the caller's tid: JSON text. */
  merged(body: RecordBody | ReducedReceiptBody): string {
    const rec = this.#store.current!;
    const stored = this.#store.parsedBody<RecordBody>();
    const laid = kindNamed(rec.kind).withTid({ ...stored, ...body } as RecordBody, rec.tid);
    // Erased once (rule 10), erased for good: the upstream's answers still carry the user's values.
    return JSON.stringify(rec.erased === 1 ? erasePersonal(laid) : laid);
  }

  /**
   * The JSON text of an answer built from what the upstream sent (an
   * operation's, which its Idempotency-Key keeps): erased once the owner's
   * data is (rule 10), like every body stored, though the upstream still
   * sends the values.
   */
  answerOf(value: object): string {
    return JSON.stringify(this.#store.current!.erased === 1 ? erasePersonal(value) : value);
  }

  /** Erases the owner's personal data from the body and the create's answer, and from every body stored from now on. Inside a change. */
  erase(): void {
    const rec = this.#store.current!;
    this.#slice.update({ erased: 1, body: erasePersonalJson(rec.body), answer: rec.answer === null ? null : erasePersonalJson(rec.answer) });
  }
}
