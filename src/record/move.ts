/**
 * One home for a money move. Every operation that may move money or send an
 * SMS (authorize, pay, anonymous pay, a2c pay, hold-confirm, cancel) is a
 * MoveSpec below, and every one runs the same straight steps, each named:
 *
 *   load and check access -> one at a time -> decide (the lifecycle table;
 *   a fresh look at the upstream when it asks) -> limits -> note (rule 8's
 *   write-ahead) -> call -> settle in one change (the OTP's verdict and
 *   counts, the record, its event, the note cleared) -> finish (rule 2's
 *   exhaustion cancel) -> answer -> audit.
 *
 * The steps the gateway takes on its own (completing a cancel whose answer
 * was lost, the exhaustion cancel) run the same decide -> note -> call ->
 * settle, for the caller they act for, in the phase the upstream shows.
 * The reconciler only looks; what its look leaves owed comes back here.
 */
import { type Caller, mayAccess, ownerOf } from "../caller";
import { clock } from "../clock";
import { type Failure, fail, type Outcome } from "../errors";
import type { RecordBody } from "../kinds";
import { type CallerKind, type Decision, GUESS_LIMIT_WORD, type Operation, otpToSend, otpVerdictOf, STATE, upstreamPhase } from "../lifecycle";
import { log } from "../log";
import type { AuthorizeBody, NumberCardInput, ReducedReceiptBody, TokenCardInput } from "../schemas";
import type { UpstreamResult } from "../upstream/calls";
import { UpstreamClient } from "../upstream/client";
import type { RecordTarget } from "./end";
import type { RecordParts } from "./parts";
import { callerKindOf, type LostCancel } from "./reconciler";
import type { RecordRow } from "./store";
import type { Note } from "./write-ahead";

/** Who asks, in which request, about which record (what the partner's rebuild of a deleted record reads: rule 10). */
export interface OperationContext {
  caller: Caller;
  requestId: string;
  record?: RecordTarget;
}

/** A money move, as data: its operation in the lifecycle table, the OTP its call carries, any limit of its own, and the call. */
export interface MoveSpec<I, T> {
  operation: Operation;
  /** The OTP the call carries: undefined when none is needed, false when one is needed and missing. */
  otp?: (rec: RecordRow, input: I) => string | undefined | false;
  call: (upstream: UpstreamClient, rec: RecordRow, input: I, otp: string | undefined) => Promise<UpstreamResult<T>>;
  /**
   * `state`: the answer is the record (an unknown outcome keeps the note for
   * the reconciler); `send`: an OTP send, which changes no state (an unknown
   * outcome may have sent an SMS: it counts against rule 6's limits).
   */
  settles: "state" | "send";
}

type Card = TokenCardInput | NumberCardInput;

export const AUTHORIZE: MoveSpec<{ card: Card }, AuthorizeBody> = {
  operation: "authorize",
  call: (upstream, rec, input) => upstream.authorize(rec.id, input.card),
  settles: "send",
};

export const PAY: MoveSpec<{ card: Card; otp?: string }, RecordBody | ReducedReceiptBody> = {
  operation: "pay",
  otp: (rec, input) => otpToSend("number" in input.card || rec.is_verify === 1, input.otp),
  call: (upstream, rec, { card }, otp) => ("number" in card ? upstream.anonymousPay(rec.id, card, otp ?? "") : upstream.pay(rec.id, card, otp)),
  settles: "state",
};

export const PAY_TRANSFER: MoveSpec<{ otp?: string }, RecordBody> = {
  operation: "pay",
  otp: (rec, input) => otpToSend(rec.is_verify === 1, input.otp),
  call: (upstream, rec, _input, otp) => upstream.payTransfer(rec.id, otp),
  settles: "state",
};

export const HOLD_CONFIRM: MoveSpec<unknown, RecordBody> = {
  operation: "hold-confirm",
  call: (upstream, rec) => upstream.holdConfirm(rec.id),
  settles: "state",
};

export const CANCEL: MoveSpec<{ reason?: string; cancelledBy?: string }, RecordBody> = {
  operation: "cancel",
  call: (upstream, rec, input) => upstream.cancel(rec.id, input.reason, input.cancelledBy),
  settles: "state",
};

const NOT_FOUND: Failure = { code: "receipt_not_found", message: "No such receipt." };
const LOST_CANCEL = { reason: "a cancel whose answer was lost, completed by the gateway" };
const EXHAUSTION_CANCEL = { reason: `${GUESS_LIMIT_WORD.toLowerCase()} failed OTP guesses`, cancelledBy: "gateway" };

const refusalOf = (decision: Decision): Outcome<never> =>
  decision.do === "refuse" ? fail(decision.code, decision.message) : fail("operation_in_progress", "Retry shortly.");

export class Moves {
  readonly #parts: RecordParts;
  readonly #env: Env;
  /** The operation in flight in this incarnation, if any. In memory on purpose: see #oneAtATime. */
  #busy: string | null = null;

  constructor(parts: RecordParts, env: Env) {
    this.#parts = parts;
    this.#env = env;
  }

  get busy(): boolean {
    return this.#busy !== null;
  }

  /** A request's money move, step by step (this module's header). */
  async run<I, T>(spec: MoveSpec<I, T>, op: OperationContext & I): Promise<Outcome<string>> {
    const { store, reconciler, ledger } = this.#parts;
    return this.#oneAtATime(spec.operation, op, async (upstream) => {
      const otp = spec.otp?.(store.current!, op);
      let decision = reconciler.decide(spec.operation, op.caller.kind, false, { otpMissing: otp === false });
      if (decision.do === "ask-upstream-first") {
        const looked = await this.reconcile(upstream, op.requestId);
        if (!looked.ok) return looked;
        decision = reconciler.decide(spec.operation, op.caller.kind, true, { otpMissing: otp === false });
      }
      if (decision.do !== "call") return refusalOf(decision);
      const limited = spec.settles === "send" ? ledger.sendRefusal(clock.now()) : null;
      if (limited) return { ok: false, error: limited };
      const sent = otp === false ? undefined : otp;
      const note = { op: spec.operation, actor: ownerOf(op.caller), requestId: op.requestId, withOtp: sent !== undefined };
      const result = await this.#call(spec, upstream, op, note, sent);
      const settled = this.#settle(spec, result, sent !== undefined, op.requestId);
      if (reconciler.phase() === "exhausted" && sent !== undefined) {
        await this.#exhaustionCancel(upstream, op.requestId);
        return { ok: false, error: reconciler.exhausted(op.caller.kind) };
      }
      return settled.ok ? settled : { ok: false, error: this.#explained(settled.error, settled.verdict) };
    });
  }

  /**
   * Asks the upstream how the record stands (the reconciler's look), then
   * carries out what the look left owed, each decided for whom it acts:
   * the cancel whose answer was lost, then rule 2's exhaustion cancel.
   */
  async reconcile(upstream: UpstreamClient, requestId: string): Promise<Outcome<void>> {
    const { store, reconciler } = this.#parts;
    const attempts = store.current!.reconcile_attempts;
    const looked = await reconciler.look(upstream, requestId);
    if (!looked.ok) return looked;
    if (looked.value && store.current!.state !== STATE.cancelled) await this.#completeLostCancel(upstream, requestId, looked.value);
    await this.#exhaustionCancel(upstream, requestId);
    reconciler.settled(attempts);
    return { ok: true, value: undefined };
  }

  /** The receipt or transfer as the upstream says it stands now (check-id, get-by-id). */
  async check(op: OperationContext): Promise<Outcome<string>> {
    const loaded = await this.#load(op, true);
    if (!loaded.ok) return loaded;
    const rec = loaded.value;
    // While another operation is in flight its answer is the news: serve what we know.
    if (this.#busy) return { ok: true, value: rec.body };
    if (this.#parts.reconciler.needsReconcile(rec)) {
      return this.#oneAtATime("read", op, async (upstream) => {
        const looked = await this.reconcile(upstream, op.requestId);
        return looked.ok ? { ok: true, value: this.#parts.store.current!.body } : looked;
      });
    }
    const read = await this.#parts.reconciler.read(new UpstreamClient(this.#env, op.requestId), op.requestId, () => this.busy);
    return read;
  }

  /** The alarm's look, with no caller: what only the upstream can settle, or a late read due. Audited when it changed something or failed. */
  async reconcileAlone(): Promise<void> {
    const { store } = this.#parts;
    const rec = store.current!;
    this.#busy = "reconcile";
    const requestId = `alarm-${crypto.randomUUID()}`;
    try {
      const looked = await this.reconcile(new UpstreamClient(this.#env, requestId), requestId);
      const after = store.current!;
      if (!looked.ok || after.state !== rec.state || after.pending_op !== rec.pending_op || after.suspect_since !== rec.suspect_since) {
        store.audit({ at: clock.now(), op: "reconcile", actor: "gateway", request_id: requestId, outcome: looked.ok ? "ok" : looked.error.code });
      }
    } finally {
      this.#busy = null;
    }
  }

  // --- the steps ----------------------------------------------------------------------------------

  /** Load and check access: the record (for the partner's cancel, hold-confirm and reads, a deleted one rebuilt: rule 10), if the caller may see it. */
  async #load(op: OperationContext, rebuild: boolean): Promise<Outcome<RecordRow>> {
    const { store, end } = this.#parts;
    let rec = store.load();
    if (!rec && rebuild && !this.#busy && op.caller.kind === "partner") {
      this.#busy = "rebuild";
      try {
        const rebuilt = await end.rebuild(op.record, op.caller, new UpstreamClient(this.#env, op.requestId), op.requestId);
        if (rebuilt && "code" in rebuilt) return { ok: false, error: rebuilt };
        rec = rebuilt;
      } finally {
        this.#busy = null;
      }
    }
    return rec && mayAccess(op.caller, rec.owner) ? { ok: true, value: rec } : { ok: false, error: NOT_FOUND };
  }

  /**
   * One at a time: a second operation arriving while the first awaits the
   * upstream is refused, not queued (a queued OTP guess would be judged
   * against a state its sender never saw). The flag lives in memory because
   * a Durable Object is single-threaded; what must survive an eviction
   * mid-flight is the write-ahead note in storage. Every outcome is audited.
   */
  async #oneAtATime(operation: Operation | "read", op: OperationContext, step: (upstream: UpstreamClient) => Promise<Outcome<string>>) {
    const loaded = operation === "read" ? { ok: true as const } : await this.#load(op, operation === "cancel" || operation === "hold-confirm");
    if (!loaded.ok) return loaded;
    const { store } = this.#parts;
    const actor = ownerOf(op.caller);
    const audit = (outcome: string) => store.audit({ at: clock.now(), op: operation, actor, request_id: op.requestId, outcome });
    if (this.#busy) {
      audit("operation_in_progress");
      return fail("operation_in_progress", `Another operation is in flight for this ${store.current!.kind}.`, { retry_after: 1 });
    }
    this.#busy = operation;
    try {
      const outcome = await step(new UpstreamClient(this.#env, op.requestId));
      audit(outcome.ok ? "ok" : outcome.error.code);
      return outcome;
    } catch (err) {
      log("error", "receipt_operation_failed", { request_id: op.requestId, op: operation, error: err instanceof Error ? err.message : String(err) });
      audit("internal_error");
      return fail("internal_error", "The gateway failed to handle this operation.");
    } finally {
      this.#busy = null;
    }
  }

  /** Note, then call: the write-ahead note, naming who asked, is durable before the call leaves (rule 8). */
  #call<I, T>(spec: MoveSpec<I, T>, upstream: UpstreamClient, input: I, note: Note, otp: string | undefined): Promise<UpstreamResult<T>> {
    const { store, writeAhead } = this.#parts;
    return writeAhead.around(note, () => spec.call(upstream, store.current!, input, otp));
  }

  /**
   * Settle in one change: the note cleared, the OTP's verdict counted (the
   * third failed guess exhausts the record, with its event), the record and
   * the event its change is. An unknown outcome of a state-changing call
   * stores nothing: the note stays for the reconciler.
   */
  #settle<T>(spec: MoveSpec<never, T>, result: UpstreamResult<T>, withOtp: boolean, requestId: string) {
    const { store, writeAhead, ledger, recorder } = this.#parts;
    type Settled = { ok: true; value: string } | { ok: false; error: Failure; verdict: ReturnType<typeof otpVerdictOf> };
    if (!result.ok && result.outcome === "unknown" && spec.settles === "state") return { ok: false, error: result.failure, verdict: null } as Settled;
    const verdict = withOtp ? otpVerdictOf(result.ok ? result : { ...result, code: result.failure.code }) : null;
    return store.change((): Settled => {
      writeAhead.clear();
      if (spec.settles === "send" && (result.ok || result.outcome === "unknown")) {
        ledger.countSend(result.ok ? (result.value as AuthorizeBody).wait : undefined);
      }
      if (verdict) ledger.count(verdict, requestId, !result.ok && result.failure.code === "otp_attempts_exhausted");
      if (!result.ok) {
        recorder.applyAfter(result, requestId);
        return { ok: false, error: result.failure, verdict };
      }
      if (spec.settles === "send") return { ok: true, value: JSON.stringify(result.value) };
      recorder.apply(result.value as RecordBody, requestId);
      return { ok: true, value: JSON.stringify({ ...(result.value as RecordBody), tid: store.current!.tid }) };
    });
  }

  /** The answer to a refused OTP: how many guesses are left, and why an unknown refusal counted. */
  #explained(error: Failure, verdict: ReturnType<typeof otpVerdictOf>): Failure {
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
  async #completeLostCancel(upstream: UpstreamClient, requestId: string, lost: LostCancel): Promise<void> {
    const { store, reconciler } = this.#parts;
    const rec = store.current!;
    const decision = reconciler.decide("cancel", callerKindOf(lost.actor), true);
    if (decision.do !== "call") {
      const outcome = decision.do === "refuse" ? decision.code : "operation_in_progress";
      store.audit({ at: clock.now(), op: "cancel", actor: lost.actor ?? "user:unknown", request_id: lost.requestId ?? requestId, outcome });
      log("warn", "lost_cancel_refused", { id: rec.id, kind: rec.kind, state: rec.state, code: outcome, request_id: lost.requestId });
      return;
    }
    const result = await this.#call(CANCEL, upstream, LOST_CANCEL, { op: "cancel", actor: lost.actor, requestId, withOtp: false }, undefined);
    if (!result.ok && (result.outcome === "unknown" || result.failure.code === "upstream_unavailable")) return;
    this.#settle(CANCEL, result, false, requestId);
  }

  /**
   * Finish: three failed guesses on a receipt the upstream cancels, still
   * unpaid there: the gateway's own cancel (caller `gateway`, a user's rights:
   * it never refunds). A busy answer is tried again by the alarm; a refusal
   * for good (no access) closes the record at the edge.
   */
  async #exhaustionCancel(upstream: UpstreamClient, requestId: string): Promise<void> {
    const { store, reconciler, ledger } = this.#parts;
    const rec = store.current!;
    if (!reconciler.exhaustionCancelPending(rec) || rec.pending_op) return;
    const gateway: CallerKind = "gateway";
    if (reconciler.decide("cancel", gateway, true, { phase: upstreamPhase(rec.state) }).do !== "call") return;
    const note: Note = { op: "exhaustion-cancel", actor: gateway, requestId, withOtp: false };
    const result = await this.#call(CANCEL, upstream, EXHAUSTION_CANCEL, note, undefined);
    if (!result.ok && result.outcome === "unknown") return;
    store.change(() => {
      this.#settle(CANCEL, result, false, requestId);
      if (!result.ok && result.failure.code !== "upstream_unavailable" && store.current!.state !== STATE.cancelled) {
        ledger.cancelRefused();
        log("warn", "exhaustion_cancel_refused", { id: rec.id, upstream_code: result.failure.upstream_code, code: result.failure.code });
      }
    });
  }
}
