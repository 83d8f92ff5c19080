/**
 * One Durable Object per receipt (or transfer) id. It owns the rules that
 * must hold however many requests race: one operation at a time, the
 * three-wrong-OTPs rule, resend limits, no double pay, who may do what, and
 * the audit trail. It stores the last known receipt (masked card only) and
 * counters; never a card number, expiry, token or OTP.
 */
import { DurableObject } from "cloudflare:workers";
import { type Caller, mayAccess, ownerOf } from "./caller";
import { type Failure, fail, type Outcome } from "./errors";
import { log } from "./redact";
import type { AuthorizeBody, NumberCardInput, ReceiptBody, ReducedReceiptBody, TokenCardInput, TransferBody } from "./schemas";
import { UpstreamClient, type UpstreamFailure, type UpstreamResult } from "./upstream/client";

/**
 * The JSON text of a T. Operations answer with it: the object serializes its
 * answer once, it crosses the RPC boundary as one string instead of a cloned
 * object tree, and the route sends it as it is.
 */
export type JsonText<T> = string & { readonly __jsonOf?: T };

export const STATE = { created: 0, paid: 4, held: 5, cancelled: 21, awaitingSupplier: 57 } as const;

/** Wrong OTPs that cancel a receipt. */
export const MAX_WRONG_OTPS = 3;
/** OTP sends (authorize calls) allowed per receipt. */
export const MAX_OTP_SENDS = 5;

export type RecordKind = "receipt" | "transfer";

/** The Durable Object that holds receipt or transfer `id`. */
export function receiptStub(env: Env, kind: RecordKind, id: string): DurableObjectStub<ReceiptObject> {
  return env.RECEIPTS.get(env.RECEIPTS.idFromName(`${kind}:${id}`));
}

interface RecordRow {
  kind: RecordKind;
  id: string;
  tid: string;
  owner: string;
  is_hold: number;
  qr_merchant: number;
  is_verify: number;
  state: number;
  body: string;
  otp_failures: number;
  otp_in_flight: number;
  needs_reconcile: number;
  otp_sends: number;
  last_otp_sent_at: number;
  resend_wait_ms: number;
  created_at: number;
  updated_at: number;
}

interface OperationContext {
  caller: Caller;
  requestId: string;
}

export interface InitArgs {
  kind: RecordKind;
  body: ReceiptBody | TransferBody;
  owner: string;
  isHold: boolean;
  qrMerchant: boolean;
  requestId: string;
}

type Body = ReceiptBody | TransferBody;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS record (
  singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
  kind TEXT NOT NULL,
  id TEXT NOT NULL,
  tid TEXT NOT NULL,
  owner TEXT NOT NULL,
  is_hold INTEGER NOT NULL,
  qr_merchant INTEGER NOT NULL,
  is_verify INTEGER NOT NULL,
  state INTEGER NOT NULL,
  body TEXT NOT NULL,
  otp_failures INTEGER NOT NULL DEFAULT 0,
  otp_in_flight INTEGER NOT NULL DEFAULT 0,
  needs_reconcile INTEGER NOT NULL DEFAULT 0,
  otp_sends INTEGER NOT NULL DEFAULT 0,
  last_otp_sent_at INTEGER NOT NULL DEFAULT 0,
  resend_wait_ms INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  op TEXT NOT NULL,
  actor TEXT NOT NULL,
  request_id TEXT NOT NULL,
  outcome TEXT NOT NULL,
  state INTEGER,
  detail TEXT
);`;

const NOT_FOUND: Failure = { code: "receipt_not_found", message: "No such receipt." };
const EXHAUSTED = {
  ok: false,
  error: { code: "otp_attempts_exhausted", message: "Three wrong OTPs: the receipt is cancelled. Create a new one." },
} as const satisfies Outcome<never>;

export class ReceiptObject extends DurableObject<Env> {
  /** The record as last read from or written to storage; null until created. */
  #record: RecordRow | null = null;
  /** The operation in flight, if any. In memory on purpose: see #exclusive. */
  #busy: string | null = null;
  /** Bumped on every write, so a lock-free read never overwrites a newer state. */
  #version = 0;

  /**
   * Reads the row from storage, the source of truth (SQLite reads are
   * synchronous and local). Every operation starts with it, so the object
   * reads nothing when it starts.
   */
  #load(): RecordRow | null {
    const sql = this.ctx.storage.sql;
    if (!this.#record) {
      const exists = sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'record'").toArray().length > 0;
      if (!exists) return null;
    }
    this.#record = (sql.exec("SELECT * FROM record").toArray()[0] as unknown as RecordRow | undefined) ?? null;
    return this.#record;
  }

  // --- RPC ------------------------------------------------------------------

  /** Records a receipt or transfer just created upstream. Idempotent. */
  async init(args: InitArgs): Promise<void> {
    if (this.#load()) return;
    const now = Date.now();
    const body = args.body;
    this.ctx.storage.sql.exec(SCHEMA);
    this.ctx.storage.sql.exec(
      `INSERT INTO record (singleton, kind, id, tid, owner, is_hold, qr_merchant, is_verify, state, body, created_at, updated_at)
       VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      args.kind,
      "receipt_id" in body ? body.receipt_id : body.id,
      body.tid,
      args.owner,
      args.isHold ? 1 : 0,
      args.qrMerchant ? 1 : 0,
      body.is_verify ? 1 : 0,
      body.state,
      JSON.stringify(body),
      now,
      now,
    );
    this.#load();
    this.#audit("create", args.owner, args.requestId, "ok");
  }

  /** Sends (or resends) the OTP. */
  authorize(op: OperationContext & { card: TokenCardInput | NumberCardInput }): Promise<Outcome<JsonText<AuthorizeBody>>> {
    return this.#exclusive("authorize", op, async (rec, upstream) => {
      const refused = this.#refuseUnlessPayable(rec);
      if (refused) return refused;
      if (rec.otp_sends >= MAX_OTP_SENDS) {
        return fail("rate_limited", `At most ${MAX_OTP_SENDS} OTPs are sent for one receipt; create a new receipt.`, {
          retry_after: 3600,
        });
      }
      const waitLeft = rec.last_otp_sent_at + rec.resend_wait_ms - Date.now();
      if (waitLeft > 0) {
        return fail("otp_resend_too_soon", "An OTP was sent moments ago; wait before asking for another.", {
          retry_after: waitLeft / 1000,
        });
      }
      const result = await upstream.authorize(rec.id, op.card);
      if (result.ok || result.outcome === "unknown") {
        // An unknown outcome may have sent an SMS: it counts against the limits too.
        this.#update({
          otp_sends: rec.otp_sends + 1,
          last_otp_sent_at: Date.now(),
          resend_wait_ms: result.ok ? result.value.wait : Math.max(rec.resend_wait_ms, 60_000),
        });
      }
      return result.ok ? result : this.#failed(result);
    });
  }

  /** Pays a receipt with a card token or number, enforcing the OTP rules. */
  pay(
    op: OperationContext & { card: TokenCardInput | NumberCardInput; otp?: string },
  ): Promise<Outcome<JsonText<ReceiptBody | ReducedReceiptBody>>> {
    return this.#exclusive("pay", op, async (rec, upstream) => {
      const anonymous = "number" in op.card;
      return this.#payWithOtp(rec, upstream, anonymous || rec.is_verify === 1, op.otp, (otp) =>
        "number" in op.card
          ? upstream.anonymousPay(rec.id, op.card, otp ?? "")
          : upstream.pay(rec.id, op.card as TokenCardInput, otp),
      );
    });
  }

  /** Confirms a transfer, enforcing the OTP rules. */
  payTransfer(op: OperationContext & { otp?: string }): Promise<Outcome<JsonText<TransferBody>>> {
    return this.#exclusive("pay", op, (rec, upstream) =>
      this.#payWithOtp(rec, upstream, rec.is_verify === 1, op.otp, (otp) => upstream.payTransfer(rec.id, otp)),
    );
  }

  holdConfirm(op: OperationContext & { holdEnabled: boolean }): Promise<Outcome<JsonText<ReceiptBody>>> {
    return this.#exclusive("hold-confirm", op, async (rec, upstream) => {
      if (op.caller.kind !== "partner") return fail("forbidden", "hold-confirm is for the partner backend only.");
      if (!op.holdEnabled) return fail("hold_not_enabled", "The hold function is not enabled in this deployment.");
      if (rec.is_hold !== 1) return fail("receipt_not_held", "This receipt was not created with is_hold.");
      if (rec.state === STATE.cancelled) return fail("receipt_cancelled", "The receipt is cancelled.");
      if (rec.state === STATE.paid) return fail("receipt_already_paid", "The hold on this receipt is already confirmed.");
      if (rec.state !== STATE.held) return fail("receipt_not_held", "Nothing is held on this receipt yet: pay it first.");
      return this.#settle(await upstream.holdConfirm(rec.id));
    });
  }

  cancel(op: OperationContext & { reason?: string; cancelledBy?: string }): Promise<Outcome<JsonText<ReceiptBody>>> {
    return this.#exclusive("cancel", op, async (rec, upstream) => {
      if (rec.state === STATE.cancelled || rec.state === STATE.awaitingSupplier) {
        return fail("cancel_not_allowed", `A receipt in state ${rec.state} cannot be cancelled.`);
      }
      if (rec.qr_merchant === 1) return fail("cancel_not_allowed", "Receipts of QR merchants cannot be cancelled.");
      if (op.caller.kind !== "partner" && rec.state !== STATE.created) {
        return fail("forbidden", "Only the partner backend may cancel a paid receipt.");
      }
      return this.#settle(await upstream.cancel(rec.id, op.reason, op.cancelledBy));
    });
  }

  /** The receipt or transfer as the upstream says it stands now. */
  async check(op: OperationContext): Promise<Outcome<JsonText<Body>>> {
    const rec = this.#busy ? this.#record : this.#load();
    if (!rec || !mayAccess(op.caller, rec.owner)) return { ok: false, error: NOT_FOUND };
    // While another operation is in flight its answer is the news: serve what we know.
    if (this.#busy) return { ok: true, value: rec.body };
    if (rec.needs_reconcile || rec.otp_in_flight) {
      return this.#exclusive("check", op, async (current) => ({ ok: true, value: JSON.parse(current.body) as Body }));
    }
    const version = this.#version;
    const upstream = new UpstreamClient(this.env, op.requestId);
    const result = rec.kind === "transfer" ? await upstream.getTransfer(rec.id) : await upstream.checkId(rec.id);
    if (!result.ok) return { ok: false, error: result.failure };
    if (version === this.#version) this.#store(result.value);
    return { ok: true, value: this.#record!.body };
  }

  // --- rules ----------------------------------------------------------------

  /**
   * Runs one operation at a time. A second one arriving while the first
   * awaits the upstream is refused, not queued: a queued OTP guess would
   * be judged against a state its sender never saw. The flag lives in memory
   * because a Durable Object is single-threaded; what must survive an
   * eviction mid-flight (an OTP sent, an outcome unknown) is in storage.
   */
  async #exclusive<T>(
    name: string,
    op: OperationContext,
    run: (rec: RecordRow, upstream: UpstreamClient) => Promise<Outcome<T>>,
  ): Promise<Outcome<JsonText<T>>> {
    const rec = this.#busy ? this.#record : this.#load();
    if (!rec || !mayAccess(op.caller, rec.owner)) return { ok: false, error: NOT_FOUND };
    const actor = ownerOf(op.caller);
    if (this.#busy) {
      this.#audit(name, actor, op.requestId, "operation_in_progress");
      return fail("operation_in_progress", `Another operation (${this.#busy}) is in flight for this receipt.`, {
        retry_after: 1,
      });
    }
    this.#busy = name;
    try {
      const upstream = new UpstreamClient(this.env, op.requestId);
      const reconciled = await this.#reconcile(upstream);
      const outcome = reconciled ?? (await run(this.#record!, upstream));
      this.#audit(name, actor, op.requestId, outcome.ok ? "ok" : outcome.error.code);
      return outcome.ok ? { ok: true, value: JSON.stringify(outcome.value) } : outcome;
    } catch (err) {
      log("error", "receipt_operation_failed", {
        request_id: op.requestId,
        op: name,
        error: err instanceof Error ? err.message : String(err),
      });
      this.#audit(name, actor, op.requestId, "internal_error");
      return fail("internal_error", "The gateway failed to handle this operation.");
    } finally {
      this.#busy = null;
    }
  }

  /**
   * After an answer that never came (timeout, 5xx), asks the upstream how the
   * record stands before anything else may touch it. An OTP whose fate is
   * unknown and that did not pay counts as a wrong one: the cap on guesses
   * that reach the upstream must hold even when answers are lost.
   */
  async #reconcile(upstream: UpstreamClient): Promise<Outcome<never> | null> {
    const rec = this.#record!;
    if (rec.needs_reconcile || rec.otp_in_flight) {
      const result = rec.kind === "transfer" ? await upstream.getTransfer(rec.id) : await upstream.checkId(rec.id);
      if (!result.ok) return { ok: false, error: result.failure };
      this.#store(result.value);
      const unpaid = this.#record!.state === STATE.created;
      this.#update({
        needs_reconcile: 0,
        otp_in_flight: 0,
        otp_failures: rec.otp_failures + (rec.otp_in_flight && unpaid ? 1 : 0),
      });
    }
    // Three wrong OTPs whose cancel did not go through yet (or was never answered): try again.
    if (this.#record!.otp_failures >= MAX_WRONG_OTPS) await this.#cancelAfterWrongOtps(upstream);
    return null;
  }

  /** Refusals common to everything that would pay or send an OTP: guesses used up, cancelled, paid. */
  #refuseUnlessPayable(rec: RecordRow): Outcome<never> | null {
    if (rec.otp_failures >= MAX_WRONG_OTPS) return EXHAUSTED;
    if (rec.state === STATE.cancelled) return fail("receipt_cancelled", "The receipt is cancelled; create a new one.");
    if (rec.state !== STATE.created) return fail("receipt_already_paid", `The receipt is already paid (state ${rec.state}).`);
    return null;
  }

  async #payWithOtp<T extends Body | ReducedReceiptBody>(
    rec: RecordRow,
    upstream: UpstreamClient,
    needsOtp: boolean,
    otp: string | undefined,
    send: (otp: string | undefined) => Promise<UpstreamResult<T>>,
  ): Promise<Outcome<T>> {
    const refused = this.#refuseUnlessPayable(rec);
    if (refused) return refused;
    if (needsOtp && otp === undefined) return fail("otp_required", "This payment needs the OTP sent to the card owner.");

    // Persisted before the call leaves: if the answer is lost, the guess still counts.
    if (needsOtp) this.#update({ otp_in_flight: 1 });
    const result = await send(needsOtp ? otp : undefined);

    if (result.ok) {
      this.#update({ otp_in_flight: 0 });
      this.#store(result.value);
      return result;
    }
    if (result.outcome === "unknown") {
      this.#update({ needs_reconcile: 1 });
      return { ok: false, error: result.failure };
    }
    this.#update({ otp_in_flight: 0 });
    const code = result.failure.code;
    if (code === "otp_invalid" || code === "otp_attempts_exhausted") {
      this.#storeFrom(result);
      const failures = code === "otp_invalid" ? this.#record!.otp_failures + 1 : MAX_WRONG_OTPS;
      this.#update({ otp_failures: Math.max(failures, this.#record!.otp_failures) });
      if (this.#record!.otp_failures >= MAX_WRONG_OTPS) {
        await this.#cancelAfterWrongOtps(upstream);
        return EXHAUSTED;
      }
      return fail("otp_invalid", "The OTP is wrong.", {
        attempts_left: MAX_WRONG_OTPS - this.#record!.otp_failures,
        upstream_code: result.upstreamCode,
      });
    }
    return this.#failed(result);
  }

  /** Three wrong OTPs: make sure the receipt is cancelled upstream too. */
  async #cancelAfterWrongOtps(upstream: UpstreamClient): Promise<void> {
    const rec = this.#record!;
    if (rec.state !== STATE.cancelled) {
      const cancelled = await upstream.cancel(rec.id, "three wrong OTPs", "gateway");
      if (cancelled.ok) this.#store(cancelled.value);
      else this.#storeFrom(cancelled);
      if (this.#record!.state !== STATE.cancelled) {
        // The upstream may have cancelled it itself, or not answered: look.
        const checked = rec.kind === "transfer" ? await upstream.getTransfer(rec.id) : await upstream.checkId(rec.id);
        if (checked.ok) this.#store(checked.value);
      }
    }
  }

  /** Stores what a state-changing call returned, or notes that its fate is unknown. */
  #settle<T extends Body>(result: UpstreamResult<T>): Outcome<T> {
    if (result.ok) {
      this.#store(result.value);
      return result;
    }
    if (result.outcome === "unknown") this.#update({ needs_reconcile: 1 });
    return this.#failed(result);
  }

  #failed(result: UpstreamFailure): Outcome<never> {
    this.#storeFrom(result);
    return { ok: false, error: result.failure };
  }

  // --- storage --------------------------------------------------------------

  #storeFrom(result: UpstreamFailure): void {
    const body = result.receipt ?? result.transfer;
    if (body) this.#store(body);
  }

  /**
   * Replaces the last known body. A reduced (anonymous) answer is merged into
   * it. Bodies come from the upstream client's normalization, which copies
   * only the contract's fields and masks card numbers.
   */
  #store(body: Body | ReducedReceiptBody): void {
    // Only the anonymous pay answer lacks fields (is_verify among them) that the stored body keeps.
    const merged = "is_verify" in body ? body : { ...(JSON.parse(this.#record!.body) as Body), ...body };
    this.#update({ state: body.state, body: JSON.stringify(merged) });
  }

  #update(fields: Partial<Omit<RecordRow, "kind" | "id" | "tid" | "owner" | "created_at">>): void {
    const current = this.#record as unknown as Record<string, unknown>;
    const entries = Object.entries(fields).filter(([key, value]) => current[key] !== value);
    if (entries.length === 0) return;
    const now = Date.now();
    this.ctx.storage.sql.exec(
      `UPDATE record SET ${entries.map(([key]) => `${key} = ?`).join(", ")}, updated_at = ?`,
      ...entries.map(([, value]) => value as SqlStorageValue),
      now,
    );
    this.#record = { ...this.#record!, ...fields, updated_at: now };
    this.#version++;
  }

  #audit(op: string, actor: string, requestId: string, outcome: string): void {
    if (!this.#record) return;
    this.ctx.storage.sql.exec(
      "INSERT INTO audit (at, op, actor, request_id, outcome, state) VALUES (?, ?, ?, ?, ?, ?)",
      Date.now(),
      op,
      actor,
      requestId,
      outcome,
      this.#record.state,
    );
  }
}
