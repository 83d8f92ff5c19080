// The sandbox's whole state lives in one Durable Object so that tid
// uniqueness and the OTP counters are exact: every rule runs on synchronous
// SQL inside a single RPC call, so no two calls interleave. The rules are in
// the receipts', the transfers' and the store's modules; this class is the
// RPC face src/sandbox/routes.ts and the console call.
import { DurableObject } from "cloudflare:workers";
import type { AuthorizeAnswer, DebugReceipt, DebugTransfer, Outcome, SandboxCall } from "./answers";
import { authorize, cancel, checkId, createReceipt, debugReceipt, holdConfirm, payReceipt } from "./receipts";
import type { CancelInput, CardRef, IdInput, PayInput, ReceiptCreateInput, TransferCreateInput, TransferPayInput } from "./schemas";
import { SandboxStore } from "./store";
import { advance, nextDue, type SandboxHappening, type SandboxKind, type Trigger, trigger } from "./test-clock";
import { createTransfer, debugTransfer, getTransfer, payTransfer } from "./transfers";
import type { ReducedReceipt, WireReceipt, WireTransfer } from "./wire";

export class SandboxObject extends DurableObject<Env> {
  readonly #store: SandboxStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new SandboxStore(ctx.storage.sql);
  }

  // --- receipts -------------------------------------------------------------

  createReceipt(input: ReceiptCreateInput): Outcome<WireReceipt> {
    return createReceipt(this.#store, input);
  }

  /** Token and anonymous authorize differ only in how the card is named. */
  authorize(input: { id: string; card: CardRef }): Outcome<AuthorizeAnswer> {
    return authorize(this.#store, this.env, input);
  }

  /** `otpTtlMs`: how long after the last send an OTP stays right (SANDBOX_OTP_TTL_MS, read by the caller). */
  payReceipt(input: PayInput, anonymous: boolean, otpTtlMs: number): Outcome<WireReceipt | ReducedReceipt> {
    return payReceipt(this.#store, this.env, input, anonymous, otpTtlMs);
  }

  holdConfirm(input: IdInput): Outcome<WireReceipt> {
    return holdConfirm(this.#store, this.env, input);
  }

  cancel(input: CancelInput): Outcome<WireReceipt> {
    return cancel(this.#store, this.env, input);
  }

  checkId(input: IdInput): Outcome<WireReceipt> {
    return checkId(this.#store, input);
  }

  debugReceipt(id: string): DebugReceipt | null {
    return debugReceipt(this.#store, id);
  }

  // --- a2c transfers --------------------------------------------------------

  createTransfer(input: TransferCreateInput): Outcome<WireTransfer> {
    return createTransfer(this.#store, input);
  }

  payTransfer(input: TransferPayInput): Outcome<WireTransfer> {
    return payTransfer(this.#store, this.env, input);
  }

  getTransfer(input: IdInput): Outcome<WireTransfer> {
    return getTransfer(this.#store, input);
  }

  debugTransfer(id: string): DebugTransfer | null {
    return debugTransfer(this.#store, id);
  }

  // --- test clocks and triggers (src/sandbox/test-clock.ts) ------------------

  /** ms until the sandbox next acts on its own for this record, in its own time; null: nothing left; undefined: no such record. */
  nextDue(kind: SandboxKind, id: string, otpTtlMs: number): number | null | undefined {
    return nextDue(this.#store, kind, id, otpTtlMs);
  }

  /** Moves the record's own time forward: what fell due meanwhile, in order; undefined: no such record. */
  advance(kind: SandboxKind, id: string, byMs: number, otpTtlMs: number): SandboxHappening[] | undefined {
    return advance(this.#store, kind, id, byMs, otpTtlMs);
  }

  /** The upstream acts now on what it had left for later. */
  trigger(id: string, what: Trigger): Outcome<{ id: string; what: Trigger; state: number }> {
    return trigger(this.#store, id, what);
  }

  // --- call log (lets tests prove what did or did not reach the upstream) ---

  recordCall(call: Omit<SandboxCall, "seq" | "at">): void {
    this.#store.recordCall(call);
  }

  /** Oldest first; with `id`, only the calls naming that record. */
  calls(id?: string): SandboxCall[] {
    return this.#store.calls(id);
  }
}
