/**
 * One Durable Object per receipt (or transfer) id: a host of one-line RPC
 * methods. The money moves are src/record/move.ts's (one home, straight
 * steps), decided by src/rules/lifecycle.ts's table; the parts they use each own
 * a slice of the record (src/record/parts.ts): the write-ahead note of rule
 * 8, the OTP ledger of rules 2 and 6, the recorder of what the upstream
 * showed, the late reads, the outbox of events, the tid completion owed,
 * the record's end; its alarm asks each when it is next due
 * (src/record/wake.ts).
 *
 * It stores the last known record (masked card only), counters, an audit
 * trail and events; never a card number, expiry, token or OTP.
 */
import { DurableObject } from "cloudflare:workers";
import type { AuthorizeBody, NumberCardInput, ReceiptBody, ReducedReceiptBody, TokenCardInput, TransferBody } from "../api/schemas";
import { readConfig } from "../config/config";
import type { Outcome } from "../errors/errors";
import type { JsonText, OperationContext, RecordAnswer } from "../record-stub";
import { cancelledByFor } from "../rules/caller";
import { kindNamed, type RecordBody } from "../rules/kinds";
import { createdEvent, type KindName } from "../rules/lifecycle";
import { clock, inRecordTime } from "../shared/clock";
import { inLine, LogLine } from "../shared/log";
import type { OwedCompletion } from "./completion";
import { eraseRecord } from "./erase";
import { Moves } from "./move";
import { type RecordParts, recordParts } from "./parts";
import { type AdvancedRecord, shiftRecordTime } from "./record-time";
import { RecordRestore, type RestoredRecord, type RestoreNote, type RestorePlan, type RestoreRequest } from "./restore";
import { AUTHORIZE, CANCEL, HOLD_CONFIRM, PAY, PAY_TRANSFER } from "./specs";
import { type AuditEntry, newRecordRow } from "./store";
import { type AuditTrail, auditTrailOf, type BackOfficeView, backOfficeViewOf, type ConsoleView, consoleViewOf } from "./views";
import { Wake } from "./wake";

export type { JsonText, OperationContext } from "../record-stub";
export { receiptStub } from "../record-stub";
export type { AdvancedRecord, AuditEntry, AuditTrail, RestoredRecord, RestoreNote, RestorePlan, RestoreRequest };

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

type Card = TokenCardInput | NumberCardInput;

export class ReceiptObject extends DurableObject<Env> {
  readonly #parts: RecordParts;
  readonly #moves: Moves;
  readonly #wake: Wake;
  readonly #restore: RecordRestore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#parts = recordParts(ctx.storage, env);
    this.#moves = new Moves(this.#parts, env);
    this.#wake = new Wake(this.#parts, this.#moves);
    this.#restore = new RecordRestore(ctx.storage, this.#parts, this.#moves);
    // The alarm an earlier incarnation left, known before the first call: a cold operation leaves one due in time alone.
    void ctx.blockConcurrencyWhile(async () => this.#parts.alarm.found(await ctx.storage.getAlarm()));
  }

  // --- money moves (src/record/move.ts) ---------------------------------------------------------

  /** Sends (or resends) the OTP. */
  authorize(op: OperationContext & { card: Card }): Promise<RecordAnswer<AuthorizeBody>> {
    return this.#armed(op, () => this.#moves.run(AUTHORIZE, op));
  }

  /** Pays a receipt with a card token or number, enforcing the OTP rules. */
  pay(op: OperationContext & { card: Card; otp?: string }): Promise<RecordAnswer<ReceiptBody | ReducedReceiptBody>> {
    return this.#armed(op, () => this.#moves.run(PAY, op));
  }

  /** Confirms a transfer, enforcing the OTP rules. */
  payTransfer(op: OperationContext & { otp?: string }): Promise<RecordAnswer<TransferBody>> {
    return this.#armed(op, () => this.#moves.run(PAY_TRANSFER, op));
  }

  holdConfirm(op: OperationContext): Promise<RecordAnswer<ReceiptBody>> {
    return this.#armed(op, () => this.#moves.run(HOLD_CONFIRM, op));
  }

  cancel(op: OperationContext & { reason?: string; cancelledBy?: string }): Promise<RecordAnswer<ReceiptBody>> {
    const cancelledBy = cancelledByFor(op.caller, op.cancelledBy, readConfig(this.env).cancelledBy);
    return this.#armed(op, () => this.#moves.run(CANCEL, { ...op, cancelledBy }));
  }

  /** The receipt or transfer as the upstream says it stands now. */
  check(op: OperationContext): Promise<RecordAnswer<RecordBody>> {
    return this.#armed(op, () => this.#moves.check(op));
  }

  // --- the record ---------------------------------------------------------------------------------

  /**
   * Records a receipt or transfer just created upstream, with its `created`
   * event, its create's answer (what replays give) and the tid completion it
   * owes, in one commit. Idempotent; a takeover's init (the same record,
   * adopted) owes its own claim's completion.
   */
  async init(args: InitArgs): Promise<void> {
    const { store, outbox, completion } = this.#parts;
    const kind = kindNamed(args.kind);
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
    const owed = args.completion ? JSON.stringify(args.completion) : null;
    store.create({ ...row, answer: row.body, owed_completion: owed }, () => {
      store.trail.add({ at: now, op: "create", actor: args.owner, request_id: args.requestId, outcome: "ok" });
      outbox.emit(createdEvent(args.kind), null, args.requestId, now);
    });
    if (args.completion) completion.owe(args.completion);
    // Its alarm only backs up what is done at once (the drain, the completion): as late as they allow, for the authorize to ride.
    this.#wake.arm({ late: true });
  }

  /** The answer this record's create gave, for an identical retry by its owner (src/operations/creation.ts checks the tid row and the replay window); null when none is kept. */
  async replay(owner: string): Promise<JsonText<RecordBody> | null> {
    const rec = this.#parts.store.load();
    return rec && rec.owner === owner ? rec.answer : null;
  }

  /**
   * What the sandbox console shows of a record: its trail, the tid it was
   * created with, its amount now, and its own time (`now`; `aheadMs`: how far
   * the sandbox's test clock moved it ahead of the deployment's).
   */
  describe(): Promise<ConsoleView | null> {
    return this.#timed(async () => consoleViewOf(this.#parts));
  }

  /**
   * What the back office shows of a record (src/backoffice/): its trail, the
   * body as last stored (card numbers masked, phone and account values as
   * they are: the console masks them unless a reveal asks), its ids, its
   * times, its events' ids and where rule 14 stands. Null when none is stored.
   */
  async backOffice(): Promise<BackOfficeView | null> {
    return backOfficeViewOf(this.#parts);
  }

  /**
   * Erases the owner's personal data (rule 10) from every store src/stores.ts
   * says the record erases (src/record/erase.ts): the stored body, the
   * create's answer kept for replays, every event in the outbox and every
   * answer kept for an Idempotency-Key now, and every body and answer
   * stored from now on. Ids, amounts, states and times stay. False when
   * nothing is stored.
   */
  erase(): Promise<boolean> {
    return this.#timed(async () => {
      if (!this.#parts.store.load()) return false;
      eraseRecord(this.#parts);
      return true;
    });
  }

  /** The bodies of these events that this record keeps (its outbox), by id: what events/list, events/resend and the sweep send. */
  async eventBodies(ids: readonly string[]): Promise<Record<string, string>> {
    return this.#parts.store.load() ? this.#parts.store.outbox.eventBodies(ids) : {};
  }

  /**
   * The ids of every event this record keeps, oldest first: the only events
   * the event log may list of it (rule 10 deletes a record only once the log
   * holds none of its events), so events/list by record reads just these from
   * the log. None when no record is stored.
   */
  async eventIds(): Promise<string[]> {
    return this.#parts.store.load() ? this.#parts.store.outbox.eventIds() : [];
  }

  /**
   * Rule 14: when the receipt's last fiscal watch began (its place in the
   * fiscal list, kept after it left it), or null when it was never watched:
   * where fiscal/pending's page after this receipt starts.
   */
  async fiscalSince(): Promise<number | null> {
    const rec = this.#parts.store.load();
    return rec && rec.fiscal_since !== 0 ? rec.fiscal_since : null;
  }

  /**
   * Rule 15: sends the trail's entries not yet in the audit trail in R2 now
   * (the record's alarm sends them on its own, within holdMs of the oldest;
   * this is for whoever must see them there at once). True when none is left owed.
   */
  exportAudit(): Promise<boolean> {
    return this.#timed(async () => {
      const { store, audit } = this.#parts;
      if (!store.load()) return true;
      await audit.export();
      return !audit.owed;
    });
  }

  /** The audit trail, oldest first (partner only: the route checks). */
  async auditTrail(): Promise<AuditTrail | null> {
    return auditTrailOf(this.#parts.store);
  }

  // --- an operator's point-in-time restore (src/record/restore.ts; the route is src/operations/restore.ts) ---

  /** Step 1: the bookmark for the time and, unless a dry run, the restore scheduled for the next start. */
  restorePrepare(request: RestoreRequest): Promise<Outcome<RestorePlan>> {
    return this.#timed(() => this.#restore.prepare(request));
  }

  /** Restarts the object (its call fails with the reason): the next call opens the restored storage. */
  restart(reason: string): void {
    this.ctx.abort(reason);
  }

  /** Step 2, in the restarted object: what must survive the restore carried over, the restore audited, the upstream read. */
  restoreSettle(note: RestoreNote): Promise<RestoredRecord> {
    return this.#timed(async () => {
      try {
        return await this.#restore.complete(note);
      } finally {
        this.#wake.arm();
      }
    });
  }

  /** Rule 8's reconciliation, the outbox and the record's end, with no caller (src/record/wake.ts): at most one canonical line (src/shared/log.ts) for the alarm. */
  override alarm(): Promise<void> {
    return this.#timed(async () => {
      const rec = this.#stored();
      // Quiet: an alarm that only drained the outbox or exported the trail writes no line.
      const line = new LogLine("alarm", rec ? { kind: rec.kind, id: rec.id } : {}, { quiet: true, sample: readConfig(this.env).logSuccessSample });
      try {
        await inLine(line, () => this.#wake.fired());
      } finally {
        this.#stateChange(line, rec?.state);
        line.write();
      }
    });
  }

  // --- the sandbox's test clock (src/console/test-clock.ts; never called in production) ------------

  /**
   * Where the record's own time stands: its now, how long until its alarm is
   * due (0: due now; null: none set) and the events it keeps; null when
   * nothing is stored (never made, or ended by rule 10).
   */
  clockState(): Promise<{ now: number; wakeIn: number | null; eventIds: string[] } | null> {
    return this.#timed(async () => {
      if (!this.#stored()) return null;
      const at = await this.ctx.storage.getAlarm();
      // The alarm is stored by the deployment's time (src/record/alarm.ts): as far from its now as from the record's.
      const wakeIn = at === null ? null : Math.max(0, at - clock.shared());
      return { now: clock.now(), wakeIn, eventIds: this.#parts.store.outbox.eventIds() };
    });
  }

  /**
   * Moves the record's own time `byMs` forward (stored in its row, so every
   * later call and alarm reads it) and, with `fire`, then runs its alarm as
   * the runtime would once that time came; else only sets the alarm where
   * its time now falls. Answers what the record shows afterwards, and the
   * events it made meanwhile; null when nothing is stored (never made, or
   * ended by rule 10).
   */
  advanceTime(byMs: number, fire: boolean): Promise<AdvancedRecord | null> {
    return this.#timed(() => shiftRecordTime({ ...this.#parts, wake: this.#wake, stored: () => this.#stored() }, byMs, fire));
  }

  /** The record as stored, or null (nothing stored, or stored by a newer release: neither read nor moved). */
  #stored() {
    try {
      return this.#parts.store.load();
    } catch {
      return null;
    }
  }

  /** Runs `work` in the record's own time (its row's offset: src/shared/clock.ts). */
  #timed<T>(work: () => Promise<T>): Promise<T> {
    return inRecordTime(this.#stored()?.clock_offset ?? 0, work);
  }

  /**
   * An operation (src/record/move.ts), in the record's own time: whatever it left owed has an alarm once it is
   * answered (and its events are drained at once). What it logs goes back with its answer, for the request's one
   * canonical line (src/shared/log.ts); an operation that throws writes it here, where it failed.
   */
  #armed<T>(op: OperationContext, operation: () => Promise<RecordAnswer<T>>): Promise<RecordAnswer<T>> {
    return this.#timed(async () => {
      const before = this.#stored()?.state;
      // The record's id (its kind is in the request's path).
      // Drawn on the request id, as the request's own line is: both kept or both dropped.
      const line = new LogLine(
        "record_call",
        { request_id: op.requestId, ...(op.record ? { id: op.record.id } : {}) },
        { sample: readConfig(this.env).logSuccessSample },
      );
      try {
        const answer = await inLine(line, operation);
        this.#stateChange(line, before);
        return { ...answer, log: line.take() };
      } finally {
        line.write();
        this.#wake.arm();
      }
    });
  }

  /** The record's state change, if the call or alarm made one. */
  #stateChange(line: LogLine, before: number | undefined): void {
    const after = this.#parts.store.current?.state;
    if (after !== undefined && after !== before) line.set({ state_from: before ?? null, state_to: after }, true);
  }
}
