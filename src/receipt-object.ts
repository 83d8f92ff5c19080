/**
 * One Durable Object per receipt (or transfer) id. src/lifecycle.ts decides;
 * this object carries out, one operation at a time, with small parts that
 * keep the promises that must hold whatever races, fails or restarts
 * (src/record/):
 *
 * - the write-ahead note of rule 8 (write-ahead.ts): a call that may change
 *   the record upstream is durably noted before it leaves;
 * - the OTP ledger of rules 2 and 6 (otp-ledger.ts);
 * - the recorder (recorder.ts): what the upstream showed, stored with the
 *   event its change of state is, in one storage step;
 * - the reconciler (reconciler.ts): unknown outcomes, 57, exhaustion cancels
 *   and late reads, looked at by the alarm with no caller;
 * - the outbox (outbox.ts), drained at once and by the alarm;
 * - the storage itself (store.ts): record row, audit trail, outbox rows.
 *
 * It stores the last known record (masked card only), counters, an audit
 * trail and events; never a card number, expiry, token or OTP.
 */
import { DurableObject } from "cloudflare:workers";
import { type Caller, eventOwner, mayAccess, ownerOf } from "./caller";
import { clock } from "./clock";
import { type Failure, fail, type Outcome } from "./errors";
import { kindOf, type RecordBody } from "./kinds";
import { createdEvent, type KindName, type Operation, otpToSend } from "./lifecycle";
import { log } from "./log";
import type { Alarm } from "./record/alarm";
import { Completion, type OwedCompletion } from "./record/completion";
import type { RecordEnd, RecordTarget } from "./record/end";
import type { OtpLedger } from "./record/otp-ledger";
import type { Outbox } from "./record/outbox";
import type { Outcomes } from "./record/outcomes";
import { recordParts } from "./record/parts";
import type { Reconciler } from "./record/reconciler";
import type { Recorder } from "./record/recorder";
import { type AuditEntry, newRecordRow, type RecordRow, type RecordStore } from "./record/store";
import type { Note, WriteAhead } from "./record/write-ahead";
import { erasePersonalJson } from "./redact";
import type { AuthorizeBody, NumberCardInput, ReceiptBody, ReducedReceiptBody, TokenCardInput, TransferBody } from "./schemas";
import { UpstreamClient } from "./upstream/client";

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
  /** The record the request names: what the partner's rebuild of a deleted record reads (rule 10). */
  record?: RecordTarget;
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
  /** The tid claim to complete after the answer (src/record/completion.ts): owed from this init's own commit. */
  completion?: OwedCompletion;
}

export type { AuditEntry };

/** A record's audit trail as auditTrail() answers it: owner and actors as events show them. */
export interface AuditTrail {
  id: string;
  kind: KindName;
  owner: string;
  entries: AuditEntry[];
}

const NOT_FOUND: Failure = { code: "receipt_not_found", message: "No such receipt." };

export class ReceiptObject extends DurableObject<Env> {
  readonly #store: RecordStore;
  readonly #alarm: Alarm;
  readonly #outbox: Outbox;
  readonly #ledger: OtpLedger;
  readonly #recorder: Recorder;
  readonly #writeAhead: WriteAhead;
  readonly #reconciler: Reconciler;
  readonly #outcomes: Outcomes;
  readonly #end: RecordEnd;
  readonly #completion: Completion;
  /** The operation in flight in this incarnation, if any. In memory on purpose: see #operate. */
  #busy: string | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ({
      store: this.#store,
      alarm: this.#alarm,
      outbox: this.#outbox,
      ledger: this.#ledger,
      recorder: this.#recorder,
      writeAhead: this.#writeAhead,
      reconciler: this.#reconciler,
      outcomes: this.#outcomes,
      end: this.#end,
      completion: this.#completion,
    } = recordParts(ctx.storage, env));
  }

  // --- RPC ------------------------------------------------------------------

  /**
   * Records a receipt or transfer just created upstream, with its `created`
   * event, its create's answer (what replays give) and the tid completion it
   * owes, in one commit. Idempotent; a takeover's init (the same record,
   * adopted) owes its own claim's completion.
   */
  async init(args: InitArgs): Promise<void> {
    const kind = kindOf(args.kind);
    const now = clock.now();
    const body = kind.withTid(args.body, args.tid);
    const row = newRecordRow({
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
      created_at: now,
    });
    const owed = args.completion ? Completion.serialize(args.completion) : null;
    this.#store.create({ ...row, answer: row.body, owed_completion: owed }, () => {
      this.#store.audit({ at: now, op: "create", actor: args.owner, request_id: args.requestId, outcome: "ok" });
      this.#outbox.emit(createdEvent(args.kind), null, args.requestId, now);
    });
    if (owed !== null && this.#store.current?.owed_completion !== owed) this.#store.update({ owed_completion: owed });
    this.#armAlarm();
  }

  /**
   * The answer this record's create gave, for an identical retry by its
   * owner (src/creation.ts checks the tid row and the replay window); null
   * when none is kept (a record rebuilt or made before schema 7, or deleted).
   */
  async replay(owner: string): Promise<JsonText<RecordBody> | null> {
    const rec = this.#store.load();
    return rec && rec.owner === owner ? rec.answer : null;
  }

  /** What the sandbox console shows of a record: its trail, the tid it was created with, its amount now. */
  async describe(): Promise<(AuditTrail & { tid: string; upstreamTid: string; createdAt: number; amount: number | null }) | null> {
    const trail = await this.auditTrail();
    const rec = this.#store.current;
    if (!trail || !rec) return null;
    const body = JSON.parse(rec.body) as { amount?: unknown; receiver?: { amount?: unknown } };
    const amount = rec.kind === "receipt" ? body.amount : body.receiver?.amount;
    return { ...trail, tid: rec.tid, upstreamTid: rec.upstream_tid, createdAt: rec.created_at, amount: typeof amount === "number" ? amount : null };
  }

  /** Sends (or resends) the OTP. */
  authorize(op: OperationContext & { card: TokenCardInput | NumberCardInput }): Promise<Outcome<JsonText<AuthorizeBody>>> {
    return this.#operate("authorize", op, async (rec, upstream) => {
      const refusal = this.#ledger.sendRefusal(clock.now());
      if (refusal) return { ok: false, error: refusal };
      const result = await this.#writeAhead.around(this.#note("authorize", false, op), () => upstream.authorize(rec.id, op.card));
      // Sending an OTP changes no state; an unknown outcome may have sent an SMS, so it counts against the limits.
      this.#store.change(() => {
        this.#writeAhead.clear();
        if (result.ok || result.outcome === "unknown") this.#ledger.countSend(result.ok ? result.value.wait : undefined);
        if (!result.ok) this.#recorder.applyAfter(result, op.requestId);
      });
      return result.ok ? result : { ok: false, error: result.failure };
    });
  }

  /** Pays a receipt with a card token or number, enforcing the OTP rules. */
  pay(op: OperationContext & { card: TokenCardInput | NumberCardInput; otp?: string }): Promise<Outcome<JsonText<ReceiptBody | ReducedReceiptBody>>> {
    return this.#operate("pay", op, async (rec, upstream) => {
      const card = op.card;
      const otp = otpToSend("number" in card || rec.is_verify === 1, op.otp);
      if (otp === false) return fail("otp_required", "This payment needs the OTP sent to the card owner (authorize first).");
      const result = await this.#writeAhead.around(this.#note("pay", otp !== undefined, op), () =>
        "number" in card ? upstream.anonymousPay(rec.id, card, otp ?? "") : upstream.pay(rec.id, card, otp),
      );
      return this.#outcomes.settleOtpCall(result, otp !== undefined, op.requestId, upstream);
    });
  }

  /** Confirms a transfer, enforcing the OTP rules. */
  payTransfer(op: OperationContext & { otp?: string }): Promise<Outcome<JsonText<TransferBody>>> {
    return this.#operate("pay", op, async (rec, upstream) => {
      const otp = otpToSend(rec.is_verify === 1, op.otp);
      if (otp === false) return fail("otp_required", "This transfer needs the OTP sent to the sender.");
      const result = await this.#writeAhead.around(this.#note("pay", otp !== undefined, op), () => upstream.payTransfer(rec.id, otp));
      return this.#outcomes.settleOtpCall(result, otp !== undefined, op.requestId, upstream);
    });
  }

  holdConfirm(op: OperationContext): Promise<Outcome<JsonText<ReceiptBody>>> {
    return this.#operate("hold-confirm", op, async (rec, upstream) =>
      this.#outcomes.settle(await this.#writeAhead.around(this.#note("hold-confirm", false, op), () => upstream.holdConfirm(rec.id)), op.requestId),
    );
  }

  cancel(op: OperationContext & { reason?: string; cancelledBy?: string }): Promise<Outcome<JsonText<ReceiptBody>>> {
    return this.#operate("cancel", op, async (rec, upstream) =>
      this.#outcomes.settle(
        await this.#writeAhead.around(this.#note("cancel", false, op), () => upstream.cancel(rec.id, op.reason, op.cancelledBy)),
        op.requestId,
      ),
    );
  }

  /** The receipt or transfer as the upstream says it stands now. */
  async check(op: OperationContext): Promise<Outcome<JsonText<RecordBody>>> {
    const rec = await this.#loadOrRebuild(op);
    if (!rec.ok) return rec;
    if (!rec.value) return { ok: false, error: NOT_FOUND };
    return this.#checkLoaded(rec.value, op);
  }

  async #checkLoaded(rec: RecordRow, op: OperationContext): Promise<Outcome<JsonText<RecordBody>>> {
    if (!mayAccess(op.caller, rec.owner)) return { ok: false, error: NOT_FOUND };
    // While another operation is in flight its answer is the news: serve what we know.
    if (this.#busy) return { ok: true, value: rec.body };
    if (this.#reconciler.needsReconcile(rec)) {
      return this.#operate("read", op, async (_rec, upstream) => {
        const looked = await this.#reconciler.reconcile(upstream, op.requestId);
        return looked.ok ? { ok: true, value: JSON.parse(this.#store.current!.body) as RecordBody } : looked;
      });
    }
    const version = this.#store.version;
    const result = await kindOf(rec.kind).read(new UpstreamClient(this.env, op.requestId), rec.id);
    if (!result.ok) return { ok: false, error: result.failure };
    const body = this.#recorder.merged(result.value);
    // Nothing new (the usual read) writes nothing, so the answer waits for no storage commit.
    if (version === this.#store.version && !this.#busy && (body !== rec.body || this.#reconciler.lateReadDue(rec))) {
      this.#store.change(() => this.#recorder.apply(result.value, op.requestId, body));
      this.#armAlarm();
    }
    return { ok: true, value: body };
  }

  /**
   * Erases the owner's personal data (rule 10): the stored body, the create's
   * answer kept for replays and every event in the outbox now, and every body stored from now on. Ids,
   * amounts, states and times stay. False when nothing is stored.
   */
  async erase(): Promise<boolean> {
    const rec = this.#store.load();
    if (!rec) return false;
    this.#store.change(() => {
      this.#store.update({ erased: 1, body: erasePersonalJson(rec.body), answer: rec.answer === null ? null : erasePersonalJson(rec.answer) });
      this.#store.rewriteOutbox(erasePersonalJson);
    });
    return true;
  }

  /** The bodies of these events that this record keeps (its outbox), by id: what events/list, events/resend and the sweep send. */
  async eventBodies(ids: readonly string[]): Promise<Record<string, string>> {
    return this.#store.load() ? this.#store.eventBodies(ids) : {};
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
   * Reconciliation and the outbox, with no caller (rule 8): what only the
   * upstream can settle, or a late read that is due, is looked at unless an
   * operation of this incarnation is in flight (it settles the record
   * itself); then the outbox's events are handed on.
   */
  override async alarm(): Promise<void> {
    this.#alarm.fired();
    let rec = this.#store.load();
    if (!rec) return;
    // The tid completion owed since the init (src/record/completion.ts): made sure of, then forgotten.
    if (rec.owed_completion !== null) {
      await this.#completion.settle(rec, clock.now());
      rec = this.#store.current ?? rec;
    }
    if (!this.#busy && (await this.#end.deleteIfDue(rec, clock.now(), () => !this.#busy))) return;
    try {
      if (!this.#busy && (this.#reconciler.needsReconcile(rec) || this.#reconciler.lateReadDue(rec))) await this.#reconcileAlone(rec);
      // Draining takes no lock: an operation may run meanwhile and add events; only the drained ones are marked sent.
      await this.#outbox.drain();
    } catch (err) {
      log("error", "receipt_alarm_failed", { id: rec.id, kind: rec.kind, error: err instanceof Error ? err.message : String(err) });
    } finally {
      this.#armAlarm(false);
    }
  }

  async #reconcileAlone(rec: RecordRow): Promise<void> {
    this.#busy = "reconcile";
    const requestId = `alarm-${crypto.randomUUID()}`;
    try {
      const looked = await this.#reconciler.reconcile(new UpstreamClient(this.env, requestId), requestId);
      const after = this.#store.current!;
      if (!looked.ok || after.state !== rec.state || after.pending_op !== rec.pending_op || after.suspect_since !== rec.suspect_since) {
        this.#store.audit({
          at: clock.now(),
          op: "reconcile",
          actor: "gateway",
          request_id: requestId,
          outcome: looked.ok ? "ok" : looked.error.code,
        });
      }
    } finally {
      this.#busy = null;
    }
  }

  /** The record; for the partner, a deleted one rebuilt from the upstream (rule 10, src/record/end.ts). */
  async #loadOrRebuild(op: OperationContext): Promise<Outcome<RecordRow | null>> {
    const rec = this.#store.load();
    if (rec || this.#busy || op.caller.kind !== "partner") return { ok: true, value: rec };
    this.#busy = "rebuild";
    try {
      const rebuilt = await this.#end.rebuild(op.record, op.caller, new UpstreamClient(this.env, op.requestId), op.requestId);
      if (rebuilt && !("code" in rebuilt)) this.#armAlarm(false);
      return rebuilt && "code" in rebuilt ? { ok: false, error: rebuilt } : { ok: true, value: rebuilt };
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
    const loaded =
      operation === "cancel" || operation === "hold-confirm" ? await this.#loadOrRebuild(op) : { ok: true as const, value: this.#store.load() };
    if (!loaded.ok) return loaded;
    const rec = loaded.value;
    if (!rec || !mayAccess(op.caller, rec.owner)) return { ok: false, error: NOT_FOUND };
    const actor = ownerOf(op.caller);
    const audit = (outcome: string) => this.#store.audit({ at: clock.now(), op: operation, actor, request_id: op.requestId, outcome });
    if (this.#busy) {
      audit("operation_in_progress");
      return fail("operation_in_progress", `Another operation is in flight for this ${rec.kind}.`, { retry_after: 1 });
    }
    this.#busy = operation;
    try {
      const upstream = new UpstreamClient(this.env, op.requestId);
      const outcome = operation === "read" ? await run(rec, upstream) : await this.#decideAndRun(operation, op, upstream, run);
      audit(outcome.ok ? "ok" : outcome.error.code);
      return outcome.ok ? { ok: true, value: JSON.stringify(outcome.value) } : outcome;
    } catch (err) {
      log("error", "receipt_operation_failed", { request_id: op.requestId, op: operation, error: err instanceof Error ? err.message : String(err) });
      audit("internal_error");
      return fail("internal_error", "The gateway failed to handle this operation.");
    } finally {
      this.#busy = null;
      this.#armAlarm();
    }
  }

  /** The lifecycle's decision, after a fresh look at the upstream where it asks for one. */
  async #decideAndRun<T>(
    operation: Operation,
    op: OperationContext,
    upstream: UpstreamClient,
    run: (rec: RecordRow, upstream: UpstreamClient) => Promise<Outcome<T>>,
  ): Promise<Outcome<T>> {
    let decision = this.#reconciler.decide(operation, op.caller.kind, false);
    if (decision.do === "ask-upstream-first") {
      const looked = await this.#reconciler.reconcile(upstream, op.requestId);
      if (!looked.ok) return looked;
      decision = this.#reconciler.decide(operation, op.caller.kind, true);
    }
    if (decision.do === "call") return run(this.#store.current!, upstream);
    if (decision.do === "refuse" && decision.code === "otp_attempts_exhausted") return { ok: false, error: this.#outcomes.exhausted() };
    return fail(decision.do === "refuse" ? decision.code : "operation_in_progress", decision.do === "refuse" ? decision.message : "Retry shortly.");
  }

  /** The write-ahead note of a call this operation sends: who asked is its caller. */
  #note(operation: string, withOtp: boolean, op: OperationContext): Note {
    return { op: operation, withOtp, requestId: op.requestId, actor: ownerOf(op.caller) };
  }

  // --- the alarm ----------------------------------------------------------------

  /**
   * After every operation and alarm: events still owed are drained at once,
   * in the background (nobody's answer waits for them), and whatever is owed
   * (events, a reconciliation) has an alarm, so an eviction or a crash before
   * the drain loses nothing. An alarm already due early enough is left alone.
   */
  #armAlarm(drainNow = true): void {
    const rec = this.#store.current;
    if (!rec) return;
    const now = clock.now();
    const reconcileAt = this.#reconciler.nextAt(rec, now);
    const drain = this.#outbox.dueAt(now);
    const completeAt = this.#completion.dueAt(rec);
    // A completion owed keeps the record from its end: deleting it would forget the claim.
    const deleteAt = completeAt === null ? this.#end.deleteAt(rec) : null;
    const due = Math.min(reconcileAt ?? Infinity, drain?.at ?? Infinity, deleteAt ?? Infinity, completeAt ?? Infinity);
    const latest = Math.min(reconcileAt ?? Infinity, drain?.latest ?? Infinity, completeAt ?? Infinity);
    if (due === Infinity) this.#alarm.set(null);
    else if (!this.#alarm.setWithin(now, latest)) this.#alarm.set(due);
    if (drainNow && this.#outbox.ready) void this.#outbox.drain().then(() => this.#armAlarm(false));
  }
}
