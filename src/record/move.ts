/**
 * One home for a money move. Every operation that may move money or send an
 * SMS (authorize, pay, anonymous pay, a2c pay, hold-confirm, cancel) is a
 * MoveSpec below, and every one runs the same straight steps, each named:
 *
 *   keys first (rule 11's kept answer) -> load and check access -> one at
 *   a time -> a look at the upstream if the lifecycle table asks -> decide
 *   once -> limits -> note (rule 8's write-ahead) and call -> settle and
 *   audit in one change (the note cleared, the OTP's verdict and counts,
 *   the record, its event, the trail's entry) -> finish (rule 2's
 *   exhaustion cancel) -> answer (kept for its key).
 *
 * The gateway's own cancel (completing a cancel whose answer was lost, rule
 * 2's exhaustion cancel, rule 12's expiry) is one path of the same decide ->
 * note -> call -> settle, for the caller it acts for, in the phase the
 * upstream shows (src/record/settle.ts gatewayCancel).
 * The reconciler only looks; what its look leaves owed comes back here.
 */

import { readConfig } from "../config/config";
import { type Failure, fail, type Outcome } from "../errors/errors";
import { metric } from "../metrics/metrics";
import type { OperationContext, RecordAnswer } from "../record-stub";
import { admitRisk } from "../risk/check";
import { mayAccess, ownerOf } from "../rules/caller";
import type { Decision, Operation } from "../rules/lifecycle";
import { clock } from "../shared/clock";
import { log } from "../shared/log";
import { UpstreamClient } from "../upstream/client";
import { KeptAnswers } from "./answers";
import type { RecordParts } from "./parts";
import { Settlement } from "./settle";
import { callOf, type MoveSpec } from "./specs";
import type { RecordRow } from "./store";

const NOT_FOUND: Failure = { code: "receipt_not_found", message: "No such receipt." };

const refusalOf = (decision: Decision): Outcome<never> =>
  decision.do === "refuse" ? fail(decision.code, decision.message) : fail("operation_in_progress", "Retry shortly.");

export class Moves {
  readonly #parts: RecordParts;
  readonly #env: Env;
  readonly #settlement: Settlement;
  readonly #answers: KeptAnswers;
  /** The operation in flight in this incarnation, if any. In memory on purpose: see #enter. */
  #busy: string | null = null;

  constructor(parts: RecordParts, env: Env) {
    this.#parts = parts;
    this.#env = env;
    this.#settlement = new Settlement(parts, readConfig(env).cancelledBy);
    this.#answers = new KeptAnswers(parts);
  }

  get busy(): boolean {
    return this.#busy !== null;
  }

  /** Rule 12: the record is past its window (or its expiry's cancel is owed again). */
  expiryDue(): boolean {
    const { store, reconciler, expiry } = this.#parts;
    const rec = store.current;
    return rec !== null && expiry.isDue(rec, reconciler.phase(rec), clock.now());
  }

  /**
   * A request's money move, in the straight steps of this module's header:
   * every step reads the result of the one before, and nothing is handed in
   * to run later.
   */
  async run<I, A>(spec: MoveSpec<I>, op: OperationContext & I): Promise<RecordAnswer<A>> {
    // Rule 11, keys first: a kept answer is the repeat's whatever else the record is doing (a read, an alarm).
    const kept = this.#answers.replay<A>(spec.operation, op);
    if (kept) return kept;
    // Load and check access.
    const loaded = await this.#load(op, spec.operation === "cancel" || spec.operation === "hold-confirm");
    if (!loaded.ok) return loaded;
    // One at a time.
    const busy = this.#enter(spec.operation, op);
    if (busy) return busy;
    try {
      return await this.#move<I, A>(spec, op, new UpstreamClient(this.#env, op.requestId));
    } catch (err) {
      return this.#failed(spec.operation, op, err);
    } finally {
      this.#busy = null;
    }
  }

  /** The steps after the lock: look if the rulebook asks, decide once, limits, note and call, settle and audit in one change, finish, answer. */
  async #move<I, A>(spec: MoveSpec<I>, op: OperationContext & I, upstream: UpstreamClient): Promise<RecordAnswer<A>> {
    const { store, reconciler, ledger, expiry, writeAhead } = this.#parts;
    const answers = this.#answers;
    const { operation } = spec;
    // Rule 11: a key its caller used for this operation here answers what its first request got, and calls nothing.
    const seen = answers.lookup(operation, op);
    if (seen.kind === "replay") return this.#audited(operation, op, { ok: true, value: seen.answer.body, replayed: seen.answer });
    if (seen.kind === "reused") {
      const reused = "This Idempotency-Key was used for another request on this record; use a new key for a new request.";
      return this.#audited(operation, op, fail("idempotency_key_reused", reused));
    }
    if (seen.kind === "unknown") {
      const looked = await this.reconcile(upstream, op.requestId);
      return this.#audited(operation, op, looked.ok ? answers.afterUnknown<A>(operation, op) : looked);
    }
    const otp = spec.otp?.(store.current!, op);
    const otpMissing = otp === false;
    // Look at the upstream if the rulebook asks (rule 8), or the record is past its window (rule 12: expired first, as the alarm would).
    const fresh = expiry.isDue(store.current!, reconciler.phase(), clock.now()) || reconciler.asksForLook(operation, op.caller.kind, { otpMissing });
    if (fresh) {
      const looked = await this.reconcile(upstream, op.requestId);
      if (!looked.ok) return this.#audited(operation, op, looked);
    }
    // Decide once.
    const decision = reconciler.decide(operation, op.caller.kind, fresh, { otpMissing });
    if (decision.do !== "call") return this.#audited(operation, op, answers.keep(operation, op, refusalOf(decision)));
    // Limits: rule 6's sends, then rule 13's, counted only here, once the call is allowed and about to leave.
    const limited = spec.settles === "send" ? ledger.sendRefusal(clock.now()) : null;
    if (limited) return this.#audited(operation, op, { ok: false, error: limited });
    const uses = spec.risk?.(op);
    const risky = uses ? await admitRisk(this.#env, op.caller, uses, op.requestId) : null;
    if (risky) return this.#audited(operation, op, { ok: false, error: risky });
    // Note and call, the key kept open in the note's commit.
    const sent = otpMissing ? undefined : otp;
    answers.open(operation, op);
    const note = { op: operation, actor: ownerOf(op.caller), requestId: op.requestId, withOtp: sent !== undefined };
    await writeAhead.note(note);
    const called = await callOf(spec, upstream, store.current!, op, sent);
    const { result } = called;
    const unknown = !result.ok && result.outcome === "unknown";
    if (unknown) metric(this.#env, "unknown_outcome", { operation: `${store.current!.kind}/${operation}` });
    // Settle, audit and keep the key's answer in one change, one UPDATE of the row: rule 2's third failed guess is
    // audited as the answer it gets. An unknown outcome keeps no answer; an exhaustion keeps it after its cancel.
    const entry = { op: operation, actor: ownerOf(op.caller), request_id: op.requestId };
    const exhausted = () => sent !== undefined && reconciler.phase() === "exhausted";
    const answered = store.change((): Outcome<string> | null => {
      const settled = this.#settlement.settle(called, sent !== undefined, op.requestId, entry);
      if (unknown || exhausted()) return null;
      return answers.keep(operation, op, settled.ok ? settled : { ok: false, error: this.#settlement.explained(settled.error, settled.verdict) });
    });
    if (answered) return answered;
    if (unknown) return { ok: false, error: result.failure };
    // Rule 2's exhaustion: its cancel, through the one gateway cancel, then its answer.
    await this.#settlement.gatewayCancel(upstream, op.requestId, null);
    return answers.keep(operation, op, { ok: false, error: reconciler.exhausted(op.caller.kind) });
  }

  /**
   * Asks the upstream how the record stands (the reconciler's look), then
   * carries out the one cancel the look left owed, decided for whom it acts
   * (src/record/settle.ts gatewayCancel): the cancel whose answer was lost,
   * rule 2's exhaustion cancel, or rule 12's expiry. A cancel the upstream
   * was too busy for fails the look: nothing was decided.
   */
  async reconcile(upstream: UpstreamClient, requestId: string, ended?: () => void): Promise<Outcome<void>> {
    const { store, reconciler } = this.#parts;
    const attempts = store.current!.reconcile_attempts;
    const looked = await reconciler.look(upstream, requestId);
    if (!looked.ok) return looked;
    const cancelled = await this.#settlement.gatewayCancel(upstream, requestId, looked.value, ended);
    reconciler.countAttempt(attempts, cancelled?.outcome === "retry");
    return cancelled?.outcome === "retry" && cancelled.failure ? { ok: false, error: cancelled.failure } : { ok: true, value: undefined };
  }

  /** The receipt or transfer as the upstream says it stands now (check-id, get-by-id). */
  async check(op: OperationContext): Promise<Outcome<string>> {
    const loaded = await this.#load(op, true);
    if (!loaded.ok) return loaded;
    const rec = loaded.value;
    // While another operation is in flight its answer is the news: serve what we know.
    if (this.#busy) return { ok: true, value: rec.body };
    if (this.#parts.reconciler.needsReconcile(rec) || this.expiryDue()) {
      const busy = this.#enter("read", op);
      if (busy) return busy;
      try {
        const looked = await this.reconcile(new UpstreamClient(this.#env, op.requestId), op.requestId);
        return this.#audited("read", op, looked.ok ? { ok: true, value: this.#parts.store.current!.body } : looked);
      } catch (err) {
        return this.#failed("read", op, err);
      } finally {
        this.#busy = null;
      }
    }
    const read = await this.#parts.reconciler.read(new UpstreamClient(this.#env, op.requestId), op.requestId, () => this.busy);
    return read;
  }

  /**
   * The alarm's look, with no caller: what only the upstream can settle, a
   * late read due, or a fiscal read due (rule 14). Audited as the gateway's
   * when it changed something (the state, a note, a suspicion, the fiscal
   * phase) or failed.
   */
  async reconcileAlone(requestId = `alarm-${crypto.randomUUID()}`): Promise<Outcome<void>> {
    const { store } = this.#parts;
    const rec = store.current!;
    const changed = () => {
      const after = store.current!;
      return (
        after.state !== rec.state || after.pending_op !== rec.pending_op || after.suspect_since !== rec.suspect_since || after.fiscal !== rec.fiscal
      );
    };
    const entry = (outcome: string) => store.trail.add({ at: clock.now(), op: "reconcile", actor: "gateway", request_id: requestId, outcome });
    let audited = false;
    // The gateway's cancel that ends the look (rule 12's expiry, rule 2's exhaustion) takes this entry in its own
    // change, one UPDATE for both; it is called only where the look ends ok, and nothing after it changes the record.
    const ended = () => {
      if (!changed()) return;
      entry("ok");
      audited = true;
    };
    this.#busy = "reconcile";
    try {
      const looked = await this.reconcile(new UpstreamClient(this.#env, requestId), requestId, ended);
      if (!audited && (!looked.ok || changed())) entry(looked.ok ? "ok" : looked.error.code);
      return looked;
    } finally {
      this.#busy = null;
    }
  }

  /**
   * An operator's point-in-time restore is scheduled (src/record/restore.ts):
   * until the object restarts into the restored storage, every operation
   * answers operation_in_progress and the alarm looks at nothing, so no call
   * reaches the upstream whose outcome the restore would then forget.
   */
  freeze(): void {
    this.#busy = "restore";
  }

  /**
   * After a restore: one look at the upstream, the alarm's (rule 8) when the
   * restored record owes one, else a read as check-id's, so a change the
   * record was restored away from is stored again, with its event.
   */
  async catchUp(requestId: string): Promise<Outcome<void>> {
    const { store, reconciler } = this.#parts;
    const rec = store.current;
    if (!rec || this.#busy) return { ok: true, value: undefined };
    if (reconciler.needsReconcile(rec) || this.expiryDue()) return this.reconcileAlone(requestId);
    const read = await reconciler.read(new UpstreamClient(this.#env, requestId), requestId, () => this.busy);
    return read.ok ? { ok: true, value: undefined } : read;
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
   * mid-flight is the write-ahead note in storage. Null when the operation
   * may go on (the flag is then set: the caller clears it when done); else
   * the refusal, audited.
   */
  #enter(operation: Operation | "read", op: OperationContext): Outcome<never> | null {
    if (this.#busy) {
      const busy = fail("operation_in_progress", `Another operation is in flight for this ${this.#parts.store.current!.kind}.`, { retry_after: 1 });
      return this.#audited(operation, op, busy);
    }
    this.#busy = operation;
    return null;
  }

  /** What an operation that threw answers: logged and audited as internal_error. */
  #failed(operation: Operation | "read", op: OperationContext, err: unknown): Outcome<never> {
    log("error", "receipt_operation_failed", { request_id: op.requestId, op: operation, error: err instanceof Error ? err.message : String(err) });
    return this.#audited(operation, op, fail("internal_error", "The gateway failed to handle this operation."));
  }

  /** Every outcome of a request is audited once, in the record's trail; a refusal of rule 13 names its limit. */
  #audit(operation: Operation | "read", op: OperationContext, outcome: Outcome<unknown>): void {
    const { error } = outcome.ok ? { error: null } : outcome;
    const code = error === null ? "ok" : error.rule ? `${error.code}:${error.rule}` : error.code;
    this.#parts.store.trail.add({ at: clock.now(), op: operation, actor: ownerOf(op.caller), request_id: op.requestId, outcome: code });
  }

  /** Audits the outcome and answers it. */
  #audited<O extends Outcome<unknown>>(operation: Operation | "read", op: OperationContext, outcome: O): O {
    this.#audit(operation, op, outcome);
    return outcome;
  }
}
