/**
 * One Durable Object per receipt (or transfer) id. It runs the lifecycle
 * (src/lifecycle.ts decides; this object carries out) and keeps the promises
 * that must hold whatever races, fails or restarts:
 *
 * - one operation at a time;
 * - write-ahead (rule 8): before a call that may change the record upstream
 *   leaves, a note of it is durably stored; it is cleared in the same step
 *   that stores the call's outcome. A note found with no call in flight means
 *   the outcome is unknown: only the upstream can say, so the record is
 *   reconciled (read upstream) before anything may move money, and the
 *   object's alarm does it on its own, with backoff, without waiting for a
 *   caller;
 * - the OTP accounting of rule 2 (wrong and unconfirmed guesses, at most three);
 * - every state change and its event in one storage step (the outbox), drained
 *   by the alarm.
 *
 * It stores the last known record (masked card only), counters, an audit
 * trail and events; never a card number, expiry, token or OTP.
 */
import { DurableObject } from "cloudflare:workers";
import { type Caller, mayAccess, ownerOf } from "./caller";
import { readConfig } from "./config";
import { type Failure, fail, type Outcome } from "./errors";
import { kindOf, type RecordBody } from "./kinds";
import {
  backoffMs,
  countGuess,
  createdEvent,
  type DecisionContext,
  decide,
  type EventType,
  eventForStateChange,
  exhaustedEvent,
  exhaustedMessage,
  guessesOf,
  type KindName,
  MAX_GUESSES,
  nextReconcileAt,
  type Operation,
  type OtpVerdict,
  otpSendRefusal,
  type Phase,
  phaseOf,
  STATE,
  type UpstreamState,
} from "./lifecycle";
import { publishOutbox } from "./events/publish";
import { eventOwner, eventPayload } from "./record/event";
import { type AuditEntry, type RecordRow, RecordStore } from "./record/store";
import { log } from "./redact";
import type { AuthorizeBody, NumberCardInput, ReceiptBody, ReducedReceiptBody, TokenCardInput, TransferBody } from "./schemas";
import { UpstreamClient, type UpstreamFailure, type UpstreamResult } from "./upstream/client";

/**
 * The JSON text of a T. Operations answer with it: the object serializes its
 * answer once, it crosses the RPC boundary as one string instead of a cloned
 * object tree, and the route sends it as it is.
 */
export type JsonText<T> = string & { readonly __jsonOf?: T };

/** The Durable Object that holds receipt or transfer `id`. */
export function receiptStub(env: Env, kind: KindName, id: string): DurableObjectStub<ReceiptObject> {
  return env.RECEIPTS.get(env.RECEIPTS.idFromName(`${kind}:${id}`));
}

interface OperationContext {
  caller: Caller;
  requestId: string;
}

export interface InitArgs {
  kind: KindName;
  /** The record as the upstream created it. */
  body: RecordBody;
  /** The tid as the caller chose it. */
  tid: string;
  /** The tid the upstream holds (rule 9). */
  upstreamTid: string;
  owner: string;
  isHold: boolean;
  qrMerchant: boolean;
  requestId: string;
}

export interface AuditTrail {
  id: string;
  kind: KindName;
  owner: string;
  entries: AuditEntry[];
}

const NOT_FOUND: Failure = { code: "receipt_not_found", message: "No such receipt." };
/** Events handed to the queue per drain. */
const DRAIN_BATCH = 50;
/** The alarm that backs up the immediate drain of new events, should the object stop before it. */
const DRAIN_FALLBACK_MS = 10_000;

export class ReceiptObject extends DurableObject<Env> {
  readonly #store: RecordStore;
  /** The operation in flight in this incarnation, if any. In memory on purpose: see #operate. */
  #busy: string | null = null;
  /** Bumped on every write, so a lock-free read never overwrites a newer state. */
  #version = 0;
  /** The alarm this incarnation set (undefined: not known since it started). */
  #alarmAt: number | null | undefined = undefined;
  /** Drains that failed in a row (the outbox's backoff). */
  #drainFailures = 0;
  /** A drain is under way (one at a time). */
  #draining = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new RecordStore(ctx.storage);
  }

  // --- RPC ------------------------------------------------------------------

  /** Records a receipt or transfer just created upstream, with its `created` event. Idempotent. */
  async init(args: InitArgs): Promise<void> {
    const kind = kindOf(args.kind);
    const now = Date.now();
    const body = kind.withTid(args.body, args.tid);
    this.#store.create(
      {
        kind: args.kind,
        id: kind.idOf(body),
        tid: args.tid,
        upstream_tid: args.upstreamTid,
        owner: args.owner,
        is_hold: args.isHold ? 1 : 0,
        qr_merchant: args.qrMerchant ? 1 : 0,
        is_verify: body.is_verify ? 1 : 0,
        state: kind.stateOf(body),
        body: JSON.stringify(body),
        wrong_otps: 0,
        unconfirmed_otps: 0,
        otp_sends: 0,
        last_otp_sent_at: 0,
        resend_wait_ms: 0,
        pending_op: null,
        pending_otp: 0,
        pending_since: 0,
        pending_request_id: null,
        reconcile_attempts: 0,
        event_seq: 0,
        edge_closed: 0,
        created_at: now,
      },
      () => {
        this.#store.audit({ at: now, op: "create", actor: args.owner, request_id: args.requestId, outcome: "ok" });
        this.#emit(createdEvent(args.kind), null, args.requestId);
      },
    );
    this.#armAlarm();
  }

  /** Sends (or resends) the OTP. */
  authorize(op: OperationContext & { card: TokenCardInput | NumberCardInput }): Promise<Outcome<JsonText<AuthorizeBody>>> {
    return this.#operate("authorize", op, async (rec, upstream) => {
      const refusal = otpSendRefusal({ sends: rec.otp_sends, lastSentAt: rec.last_otp_sent_at, waitMs: rec.resend_wait_ms }, Date.now());
      if (refusal) return fail(refusal.code, refusal.message, { retry_after: refusal.retryAfterSeconds });
      const result = await this.#send("authorize", false, op.requestId, () => upstream.authorize(rec.id, op.card));
      // Sending an OTP changes no state; an unknown outcome may have sent an SMS, so it counts against the limits.
      this.#store.change(() => {
        this.#clearPending();
        if (result.ok || result.outcome === "unknown") this.#countSend(result.ok ? result.value.wait : undefined);
        if (!result.ok) this.#applyAfter(result, op.requestId);
      });
      return result.ok ? result : { ok: false, error: result.failure };
    });
  }

  /** Pays a receipt with a card token or number, enforcing the OTP rules. */
  pay(op: OperationContext & { card: TokenCardInput | NumberCardInput; otp?: string }): Promise<Outcome<JsonText<ReceiptBody | ReducedReceiptBody>>> {
    return this.#operate("pay", op, async (rec, upstream) => {
      const card = op.card;
      const anonymous = "number" in card;
      const otp = this.#otpToSend(anonymous || rec.is_verify === 1, op.otp);
      if (otp === false) return fail("otp_required", "This payment needs the OTP sent to the card owner (authorize first).");
      const result = await this.#send("pay", otp !== undefined, op.requestId, () =>
        "number" in card ? upstream.anonymousPay(rec.id, card, otp ?? "") : upstream.pay(rec.id, card, otp),
      );
      return this.#settleOtpCall(result, otp !== undefined, op.requestId, upstream);
    });
  }

  /** Confirms a transfer, enforcing the OTP rules. */
  payTransfer(op: OperationContext & { otp?: string }): Promise<Outcome<JsonText<TransferBody>>> {
    return this.#operate("pay", op, async (rec, upstream) => {
      const otp = this.#otpToSend(rec.is_verify === 1, op.otp);
      if (otp === false) return fail("otp_required", "This transfer needs the OTP sent to the sender.");
      const result = await this.#send("pay", otp !== undefined, op.requestId, () => upstream.payTransfer(rec.id, otp));
      return this.#settleOtpCall(result, otp !== undefined, op.requestId, upstream);
    });
  }

  holdConfirm(op: OperationContext): Promise<Outcome<JsonText<ReceiptBody>>> {
    return this.#operate("hold-confirm", op, async (rec, upstream) =>
      this.#settle(await this.#send("hold-confirm", false, op.requestId, () => upstream.holdConfirm(rec.id)), op.requestId),
    );
  }

  cancel(op: OperationContext & { reason?: string; cancelledBy?: string }): Promise<Outcome<JsonText<ReceiptBody>>> {
    return this.#operate("cancel", op, async (rec, upstream) =>
      this.#settle(
        await this.#send("cancel", false, op.requestId, () => upstream.cancel(rec.id, op.reason, op.cancelledBy)),
        op.requestId,
      ),
    );
  }

  /** The receipt or transfer as the upstream says it stands now. */
  async check(op: OperationContext): Promise<Outcome<JsonText<RecordBody>>> {
    const rec = this.#store.load();
    if (!rec || !mayAccess(op.caller, rec.owner)) return { ok: false, error: NOT_FOUND };
    // While another operation is in flight its answer is the news: serve what we know.
    if (this.#busy) return { ok: true, value: rec.body };
    if (this.#needsReconcile(rec)) {
      return this.#operate("read", op, async (_rec, upstream) => {
        const looked = await this.#reconcile(upstream, op.requestId);
        return looked.ok ? { ok: true, value: JSON.parse(this.#store.current!.body) as RecordBody } : looked;
      });
    }
    const version = this.#version;
    const upstream = new UpstreamClient(this.env, op.requestId);
    const result = await kindOf(rec.kind).read(upstream, rec.id);
    if (!result.ok) return { ok: false, error: result.failure };
    const body = this.#merged(result.value);
    // Nothing new (the usual read) writes nothing, so the answer waits for no storage commit.
    if (version === this.#version && !this.#busy && body !== rec.body) {
      this.#store.change(() => this.#applyBody(result.value, op.requestId, body));
      this.#armAlarm();
    }
    return { ok: true, value: body };
  }

  /** The audit trail, oldest first (partner only: the route checks). */
  async auditTrail(): Promise<AuditTrail | null> {
    const rec = this.#store.load();
    if (!rec) return null;
    // Owners as events show them ("partner" or the user's sub); actors keep their kind ("partner", "user:<sub>", "gateway").
    const actor = (who: string) => (who.startsWith("partner:") ? "partner" : who);
    return {
      id: rec.id,
      kind: rec.kind,
      owner: eventOwner(rec.owner),
      entries: this.#store.auditTrail().map((entry) => ({ ...entry, actor: actor(entry.actor) })),
    };
  }

  /**
   * Reconciliation and the outbox, with no caller (rule 8): a record with a
   * call whose outcome is unknown, awaiting its supplier (57), or exhausted
   * but not yet cancelled upstream is read from the upstream, with backoff,
   * until it is settled; then its pending events go to the queue.
   */
  override async alarm(): Promise<void> {
    this.#alarmAt = null;
    const rec = this.#store.load();
    if (!rec) return;
    try {
      if (this.#needsReconcile(rec)) await this.#reconcileAlone(rec);
      // Draining takes no lock: an operation may run meanwhile and add events; only the drained ones are marked sent.
      await this.#drain();
    } catch (err) {
      log("error", "receipt_alarm_failed", { id: rec.id, kind: rec.kind, error: err instanceof Error ? err.message : String(err) });
    } finally {
      this.#armAlarm(false);
    }
  }

  /** Reconciles with no caller, unless an operation of this incarnation is in flight (it settles the record itself). */
  async #reconcileAlone(rec: RecordRow): Promise<void> {
    if (this.#busy) return;
    this.#busy = "reconcile";
    const requestId = `alarm-${crypto.randomUUID()}`;
    try {
      const before = rec.state;
      const pendingBefore = rec.pending_op;
      const looked = await this.#reconcile(new UpstreamClient(this.env, requestId), requestId);
      const after = this.#store.current!;
      if (!looked.ok || after.state !== before || pendingBefore !== after.pending_op) {
        this.#store.audit({ at: Date.now(), op: "reconcile", actor: "gateway", request_id: requestId, outcome: looked.ok ? "ok" : looked.error.code });
      }
    } finally {
      this.#busy = null;
    }
  }

  // --- the operation frame ----------------------------------------------------

  /**
   * Runs one operation at a time and lets the lifecycle decide whether it may
   * run. A second operation arriving while the first awaits the upstream is
   * refused, not queued: a queued OTP guess would be judged against a state
   * its sender never saw. The flag lives in memory because a Durable Object is
   * single-threaded; what must survive an eviction mid-flight is the
   * write-ahead note in storage.
   */
  async #operate<T>(
    operation: Operation | "read",
    op: OperationContext,
    run: (rec: RecordRow, upstream: UpstreamClient) => Promise<Outcome<T>>,
  ): Promise<Outcome<JsonText<T>>> {
    const rec = this.#store.load();
    if (!rec || !mayAccess(op.caller, rec.owner)) return { ok: false, error: NOT_FOUND };
    const actor = ownerOf(op.caller);
    if (this.#busy) {
      this.#store.audit({ at: Date.now(), op: operation, actor, request_id: op.requestId, outcome: "operation_in_progress" });
      return fail("operation_in_progress", `Another operation is in flight for this ${rec.kind}.`, { retry_after: 1 });
    }
    this.#busy = operation;
    try {
      const upstream = new UpstreamClient(this.env, op.requestId);
      const outcome = operation === "read" ? await run(rec, upstream) : await this.#decideAndRun(operation, op, upstream, run);
      this.#store.audit({ at: Date.now(), op: operation, actor, request_id: op.requestId, outcome: outcome.ok ? "ok" : outcome.error.code });
      return outcome.ok ? { ok: true, value: JSON.stringify(outcome.value) } : outcome;
    } catch (err) {
      log("error", "receipt_operation_failed", {
        request_id: op.requestId,
        op: operation,
        error: err instanceof Error ? err.message : String(err),
      });
      this.#store.audit({ at: Date.now(), op: operation, actor, request_id: op.requestId, outcome: "internal_error" });
      return fail("internal_error", "The gateway failed to handle this operation.");
    } finally {
      this.#busy = null;
      this.#armAlarm();
    }
  }

  async #decideAndRun<T>(
    operation: Operation,
    op: OperationContext,
    upstream: UpstreamClient,
    run: (rec: RecordRow, upstream: UpstreamClient) => Promise<Outcome<T>>,
  ): Promise<Outcome<T>> {
    let decision = decide(operation, this.#phase(), this.#context(op.caller, false));
    if (decision.do === "ask-upstream-first") {
      const looked = await this.#reconcile(upstream, op.requestId);
      if (!looked.ok) return looked;
      decision = decide(operation, this.#phase(), this.#context(op.caller, true));
    }
    if (decision.do === "call") return run(this.#store.current!, upstream);
    if (decision.do === "refuse" && decision.code === "otp_attempts_exhausted") return this.#exhausted();
    return fail(decision.do === "refuse" ? decision.code : "operation_in_progress", decision.do === "refuse" ? decision.message : "Retry shortly.");
  }

  #context(caller: Caller, fresh: boolean): DecisionContext {
    const rec = this.#store.current!;
    return {
      kind: rec.kind,
      caller: caller.kind,
      isHold: rec.is_hold === 1,
      qrMerchant: rec.qr_merchant === 1,
      holdEnabled: readConfig(this.env).holdEnabled,
      fresh,
    };
  }

  #phase(rec: RecordRow = this.#store.current!): Phase {
    return phaseOf({ state: rec.state, pending: rec.pending_op !== null, guesses: guessesOf(this.#counts(rec)) });
  }

  #counts(rec: RecordRow = this.#store.current!) {
    return { wrong: rec.wrong_otps, unconfirmed: rec.unconfirmed_otps };
  }

  #exhausted(): Outcome<never> {
    const rec = this.#store.current!;
    return fail("otp_attempts_exhausted", exhaustedMessage(rec.kind, this.#counts(rec), !this.#upstreamCancels(rec)));
  }

  /** The OTP to send: undefined when none is needed (one given anyway is not sent, and is no guess), false when one is missing. */
  #otpToSend(needed: boolean, otp: string | undefined): string | undefined | false {
    if (!needed) return undefined;
    return otp === undefined ? false : otp;
  }

  // --- write-ahead and outcomes ---------------------------------------------------

  /**
   * Notes the call durably, then sends it. The note is written and flushed
   * before the request leaves (sync(); the output gate would hold the
   * request anyway), and the alarm is set for when the call must have ended,
   * so a crash mid-call is reconciled with no caller.
   */
  async #send<T>(op: string, withOtp: boolean, requestId: string, call: () => Promise<UpstreamResult<T>>): Promise<UpstreamResult<T>> {
    const now = Date.now();
    this.#store.update({ pending_op: op, pending_otp: withOtp ? 1 : 0, pending_since: now, pending_request_id: requestId });
    this.#version++;
    this.#setAlarm(now + readConfig(this.env).upstreamTimeoutMs + 1000);
    await this.ctx.storage.sync();
    return call();
  }

  #clearPending(): void {
    this.#store.update({ pending_op: null, pending_otp: 0, pending_since: 0, pending_request_id: null });
    this.#version++;
  }

  /** Stores what a state-changing call (no OTP) returned, or leaves its note for reconciliation. */
  #settle<T extends RecordBody>(result: UpstreamResult<T>, requestId: string): Outcome<T> {
    if (!result.ok && result.outcome === "unknown") return { ok: false, error: result.failure };
    return this.#store.change(() => {
      this.#clearPending();
      if (!result.ok) {
        this.#applyAfter(result, requestId);
        return { ok: false, error: result.failure };
      }
      this.#applyBody(result.value, requestId);
      return { ok: true, value: { ...result.value, tid: this.#store.current!.tid } };
    });
  }

  /** Stores what a pay returned and counts its OTP as rule 2 says. */
  async #settleOtpCall<T extends RecordBody | ReducedReceiptBody>(
    result: UpstreamResult<T>,
    withOtp: boolean,
    requestId: string,
    upstream: UpstreamClient,
  ): Promise<Outcome<T>> {
    // Unknown: the note stays, the record is in flight until the upstream says what happened.
    if (!result.ok && result.outcome === "unknown") return { ok: false, error: result.failure };
    const rec = this.#store.current!;
    const verdict: OtpVerdict | null = !withOtp
      ? null
      : result.ok
        ? "accepted"
        : result.failure.code === "otp_invalid" || result.failure.code === "otp_attempts_exhausted"
          ? "wrong"
          : result.judged
            ? "accepted"
            : "not_judged";
    const answer = this.#store.change((): Outcome<T> => {
      this.#clearPending();
      if (verdict) this.#countGuess(verdict, requestId, result.ok ? undefined : result.failure.code === "otp_attempts_exhausted");
      if (result.ok) {
        this.#applyBody(result.value, requestId);
        return { ok: true, value: { ...result.value, tid: rec.tid } };
      }
      this.#applyAfter(result, requestId);
      return { ok: false, error: result.failure };
    });
    if (this.#phase() === "exhausted") {
      await this.#finishExhaustion(upstream, requestId);
      return this.#exhausted();
    }
    if (!answer.ok && answer.error.code === "otp_invalid") {
      return fail("otp_invalid", "The OTP is wrong.", {
        attempts_left: Math.max(0, MAX_GUESSES - guessesOf(this.#counts())),
        ...(answer.error.upstream_code ? { upstream_code: answer.error.upstream_code } : {}),
      });
    }
    return answer;
  }

  /** Counts one OTP's verdict; the third failed guess exhausts the record and is an event. Inside a change. */
  #countGuess(verdict: OtpVerdict, requestId: string, upstreamSaysExhausted = false): void {
    const rec = this.#store.current!;
    const before = this.#counts(rec);
    let counts = countGuess(before, verdict);
    // The upstream itself says the guesses are used up: believe it (never fewer than three).
    if (upstreamSaysExhausted && guessesOf(counts) < MAX_GUESSES) counts = { ...counts, wrong: MAX_GUESSES - counts.unconfirmed };
    this.#store.update({ wrong_otps: counts.wrong, unconfirmed_otps: counts.unconfirmed });
    if (guessesOf(before) < MAX_GUESSES && guessesOf(counts) >= MAX_GUESSES) {
      this.#emit(exhaustedEvent(rec.kind), rec.state, requestId);
      log("warn", "otp_attempts_exhausted", { id: rec.id, kind: rec.kind, wrong: counts.wrong, unconfirmed: counts.unconfirmed });
    }
  }

  #countSend(wait: number | undefined): void {
    const rec = this.#store.current!;
    this.#store.update({
      otp_sends: rec.otp_sends + 1,
      last_otp_sent_at: Date.now(),
      resend_wait_ms: wait ?? Math.max(rec.resend_wait_ms, 60_000),
    });
  }

  /**
   * Three failed guesses on a receipt: make sure it is cancelled upstream
   * (a state-changing call, so write-ahead too). A transfer has no cancel
   * upstream: it stays closed at the edge. If the cancel does not go
   * through, the alarm tries again.
   */
  async #finishExhaustion(upstream: UpstreamClient, requestId: string): Promise<void> {
    const rec = this.#store.current!;
    if (!this.#exhaustionCancelPending(rec) || rec.pending_op) return;
    const result = await this.#send("exhaustion-cancel", false, requestId, () =>
      upstream.cancel(rec.id, "three failed OTP guesses", "gateway"),
    );
    if (!result.ok && result.outcome === "unknown") return;
    this.#store.change(() => {
      this.#clearPending();
      if (result.ok) {
        this.#applyBody(result.value, requestId);
        return;
      }
      this.#applyAfter(result, requestId);
      // Busy: try again later. Any other refusal is for good (e.g. no access to cancel): stop asking.
      if (result.failure.code !== "upstream_unavailable" && this.#store.current!.state !== STATE.cancelled) {
        this.#store.update({ edge_closed: 1 });
        log("warn", "exhaustion_cancel_refused", { id: rec.id, upstream_code: result.failure.upstream_code, code: result.failure.code });
      }
    });
  }

  // --- reconciliation ---------------------------------------------------------

  /** A call's outcome is unknown, the supplier has not answered (57), or an exhaustion cancel is not confirmed. */
  #needsReconcile(rec: RecordRow): boolean {
    return rec.pending_op !== null || rec.state === STATE.awaitingSupplier || this.#exhaustionCancelPending(rec);
  }

  #exhaustionCancelPending(rec: RecordRow): boolean {
    return guessesOf(this.#counts(rec)) >= MAX_GUESSES && this.#upstreamCancels(rec) && rec.state !== STATE.cancelled;
  }

  /** Whether the upstream cancels this record when guesses run out: not a transfer, a QR merchant's receipt, or one it refused to. */
  #upstreamCancels(rec: RecordRow): boolean {
    return kindOf(rec.kind).cancellable && rec.qr_merchant === 0 && rec.edge_closed === 0;
  }

  /**
   * Asks the upstream how the record stands and stores it. A note of a call
   * whose outcome was lost is settled from what the upstream shows: an OTP
   * sent in it counts as an unconfirmed guess unless the record got paid.
   */
  async #reconcile(upstream: UpstreamClient, requestId: string): Promise<Outcome<void>> {
    const rec = this.#store.current!;
    const result = await kindOf(rec.kind).read(upstream, rec.id);
    if (!result.ok) {
      this.#store.update({ reconcile_attempts: rec.reconcile_attempts + 1 });
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
    this.#store.change(() => {
      const pending = this.#store.current!;
      const state = kindOf(rec.kind).stateOf(result.value);
      if (pending.pending_op !== null) {
        if (pending.pending_otp === 1) {
          const paid = state === STATE.paid || state === STATE.held || state === STATE.awaitingSupplier;
          this.#countGuess(paid ? "accepted" : "unconfirmed", requestId);
        }
        // An authorize lost to a crash may have sent an SMS.
        if (pending.pending_op === "authorize") this.#countSend(undefined);
        this.#clearPending();
      }
      this.#applyBody(result.value, requestId);
    });
    if (this.#exhaustionCancelPending(this.#store.current!)) await this.#finishExhaustion(upstream, requestId);
    // Still waiting (57, a cancel not through yet): back off further; settled: start afresh next time.
    const after = this.#store.current!;
    this.#store.update({ reconcile_attempts: this.#needsReconcile(after) ? rec.reconcile_attempts + 1 : 0 });
    return { ok: true, value: undefined };
  }

  // --- storage steps ------------------------------------------------------------

  /**
   * Stores a body the upstream answered: the new state and, if the state
   * changed, its event. A reduced (anonymous) answer is merged into the
   * stored body. Inside a change.
   */
  #applyBody(body: RecordBody | ReducedReceiptBody, requestId: string, merged = this.#merged(body)): void {
    const rec = this.#store.current!;
    const previous = rec.state;
    const state = body.state as UpstreamState;
    this.#store.update({ state, body: merged });
    this.#version++;
    const type = eventForStateChange(rec.kind, previous, state);
    if (type) this.#emit(type, previous, requestId);
  }

  /** The stored body with an upstream answer laid over it (a reduced one lacks fields), showing the caller's tid: JSON text. */
  #merged(body: RecordBody | ReducedReceiptBody): string {
    const rec = this.#store.current!;
    const stored = JSON.parse(rec.body) as RecordBody;
    return JSON.stringify(kindOf(rec.kind).withTid({ ...stored, ...body } as RecordBody, rec.tid));
  }

  /** Stores the record a refusal came with, if the upstream sent it. Inside a change. */
  #applyAfter(result: UpstreamFailure, requestId: string): void {
    const body = kindOf(this.#store.current!.kind).bodyOf(result);
    if (body) this.#applyBody(body, requestId);
  }

  /** Writes an event into the outbox, as part of the change it reports. Inside a change. */
  #emit(type: EventType, previousState: number | null, requestId: string): void {
    const rec = this.#store.current!;
    const sequence = rec.event_seq + 1;
    const at = Date.now();
    const event = eventPayload({ type, sequence, requestId, objectJson: rec.body, owner: rec.owner, previousState, at });
    this.#store.update({ event_seq: sequence });
    this.#store.enqueue(event.id, event.payload, at);
  }

  /**
   * Writes the outbox's unsent events into the D1 event log, then hands them
   * to the queue (publishOutbox); marks them sent only once both succeeded.
   * A crash between any two steps loses nothing: what is not marked is
   * drained again (the log insert is idempotent, and an event already
   * delivered is not queued twice), and what is marked is in the log, where
   * the sweep sends it again if the queue lost its message.
   */
  async #drain(): Promise<void> {
    if (this.#draining) return;
    const batch = this.#store.unsent(DRAIN_BATCH);
    if (batch.length === 0) return;
    this.#draining = true;
    try {
      await publishOutbox(
        this.env,
        batch.map((entry) => ({ id: entry.event_id, payload: entry.body })),
      );
      this.#store.markSent(
        batch.map((entry) => entry.seq),
        Date.now(),
      );
      this.#drainFailures = 0;
    } catch (err) {
      this.#drainFailures++;
      log("warn", "outbox_drain_failed", {
        id: this.#store.current?.id,
        events: batch.length,
        failures: this.#drainFailures,
        error: err instanceof Error ? err.message : String(err),
      });
    } finally {
      this.#draining = false;
    }
  }

  // --- the alarm ----------------------------------------------------------------

  /**
   * After every operation and alarm: events still owed are drained at once,
   * in the background (nobody's answer waits for them), and whatever is owed
   * (events, a reconciliation) has an alarm, so an eviction or a crash before
   * the drain loses nothing. An alarm already due early enough is left alone:
   * moving it would cost a storage write for nothing.
   */
  #armAlarm(drainNow = true): void {
    const rec = this.#store.current;
    if (!rec) return;
    const now = Date.now();
    const reconcileAt = nextReconcileAt(
      {
        phase: this.#phase(rec),
        exhaustionCancelPending: this.#exhaustionCancelPending(rec),
        attempts: rec.reconcile_attempts,
        pendingSince: rec.pending_since,
        upstreamTimeoutMs: readConfig(this.env).upstreamTimeoutMs,
      },
      now,
    );
    const owed = this.#store.hasUnsent();
    const drainAt = owed ? now + (this.#drainFailures === 0 ? DRAIN_FALLBACK_MS : backoffMs(this.#drainFailures)) : null;
    const candidates = [reconcileAt, drainAt].filter((at): at is number => at !== null);
    const due = candidates.length === 0 ? null : Math.min(...candidates);
    // The drain's fallback is a backstop, not a deadline: an alarm already set
    // up to twice as far (the write-ahead's, usually) will do, and saves a write.
    const latest = Math.min(reconcileAt ?? Infinity, drainAt === null ? Infinity : now + 2 * (drainAt - now));
    const current = this.#alarmAt;
    const earlyEnough = due !== null && typeof current === "number" && current >= now && current <= latest;
    if (!earlyEnough) this.#setAlarm(due);
    if (owed && drainNow && this.#drainFailures === 0 && !this.#draining) {
      void this.#drain().then(() => this.#armAlarm(false));
    }
  }

  #setAlarm(at: number | null): void {
    if (at === this.#alarmAt) return;
    if (at === null) {
      // Unknown since this incarnation started: an alarm left over would fire and find nothing to do; not worth a write.
      if (this.#alarmAt === undefined) return;
      this.ctx.storage.deleteAlarm();
    } else {
      this.ctx.storage.setAlarm(at);
    }
    this.#alarmAt = at;
  }
}
