// The sandbox's whole state lives in one Durable Object so that tid
// uniqueness and the OTP counters are exact: every rule below runs on
// synchronous SQL inside a single RPC call, so no two calls interleave.
import { DurableObject } from "cloudflare:workers";
import { ulid } from "ulid";
import {
  type AuthorizeAnswer,
  busy,
  type DebugReceipt,
  type DebugTransfer,
  type Failure,
  fail,
  judgedOtp,
  type OtpVerdict,
  type Outcome,
  ok,
  receiptNotFound,
  refusePay,
  type SandboxCall,
  stalled,
  unknownCode,
} from "./answers";
import {
  A2C_VERIFY_FROM,
  CORRECT_OTP,
  cardByNumber,
  cardByToken,
  commissionOf,
  findMerchant,
  findRate,
  MAX_WRONG_OTPS,
  maskPan,
  type SandboxCard,
  UNAVAILABLE_RECEIVER,
} from "./catalog";
import { latePay, lateTransferPay, msSetting, supplierAnswer } from "./clockwork";
import { ensureSchema } from "./schema";
import type { CancelInput, CardRef, IdInput, PayInput, ReceiptCreateInput, TransferCreateInput, TransferPayInput } from "./schemas";
import {
  type ReceiptRow,
  type ReducedReceipt,
  receiptBody,
  reducedReceiptBody,
  refundOfd,
  State,
  saleOfd,
  type TransferRow,
  transferBody,
  type WireReceipt,
  type WireTransfer,
} from "./wire";

const randomHex = (bytes: number) => Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
const rrn = () => String(100_000_000_000 + (Number.parseInt(randomHex(5), 16) % 900_000_000_000));

function resolveCard(card: CardRef): SandboxCard | undefined {
  return "token" in card ? cardByToken(card.token) : cardByNumber(card.number, card.expire);
}

export class SandboxObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    ensureSchema(this.sql);
  }

  // --- receipts -------------------------------------------------------------

  createReceipt(input: ReceiptCreateInput): Outcome<WireReceipt> {
    const merchant = findMerchant(input.merchant_id);
    if (!merchant) return fail(404, "MERCHANT_NOT_FOUND", "No merchant with this merchant_id");
    if (input.amount < merchant.min_amount || input.amount > merchant.max_amount) {
      return fail(400, "AMOUNT_OUT_OF_RANGE", "Amount is outside the merchant's limits", {
        min_amount: merchant.min_amount,
        max_amount: merchant.max_amount,
      });
    }
    const duplicate = this.tidTaken(input.tid);
    if (duplicate) return duplicate;
    const id = randomHex(12);
    this.sql.exec(
      `INSERT INTO receipts (id, tid, merchant_id, amount, commission, currency, description, account,
        is_hold, is_verify, state, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      input.tid,
      merchant.merchant_id,
      input.amount,
      commissionOf(input.amount, merchant.commission_percent),
      input.currency,
      input.description ?? null,
      JSON.stringify(input.account),
      input.is_hold ? 1 : 0,
      merchant.is_verify ? 1 : 0,
      State.created,
      Date.now(),
    );
    this.sql.exec(`INSERT INTO tids (tid, kind, record_id) VALUES (?, 'receipt', ?)`, input.tid, id);
    return ok(receiptBody(this.receipt(id)!));
  }

  /** Token and anonymous authorize differ only in how the card is named. */
  authorize(input: { id: string; card: CardRef }): Outcome<AuthorizeAnswer> {
    const card = resolveCard(input.card);
    if (card?.behaviour === "busy") return busy();
    const r = this.receipt(input.id);
    if (!r) return receiptNotFound();
    const refused = refusePay(r);
    if (refused) return refused;
    if (!card) return fail(402, "CARD_DECLINED", "Card is not accepted", { receipt: receiptBody(r) });
    const wait = msSetting(this.env.SANDBOX_OTP_WAIT_MS, 60_000);
    const now = Date.now();
    if (r.otp_sent_ms !== null && now - r.otp_sent_ms < wait) {
      return fail(429, "OTP_RESEND_TOO_SOON", "An OTP was sent recently", { wait: wait - (now - r.otp_sent_ms) });
    }
    this.update("receipts", r.id, { otp_sent_ms: now });
    return ok({ id: r.id, sent: true, phone: card.phone, wait });
  }

  /** `otpTtlMs`: how long after the last send an OTP stays right (SANDBOX_OTP_TTL_MS, read by the caller). */
  payReceipt(input: PayInput, anonymous: boolean, otpTtlMs: number): Outcome<WireReceipt | ReducedReceipt> {
    // A busy service looks at nothing: no record, no OTP, no counter.
    const card = resolveCard(input.card);
    if (card?.behaviour === "busy") return busy();
    const r = this.receipt(input.id);
    if (!r) return receiptNotFound();
    const refused = refusePay(r);
    if (refused) return refused;
    // Only a receipt that needs an OTP counts one; the seed lets the others pay without it.
    if (anonymous || r.is_verify === 1) {
      // Lazily on read, as the supplier's answer: no timer ends an OTP's life.
      const live = r.otp_sent_ms !== null && Date.now() - r.otp_sent_ms < otpTtlMs;
      const otpFailure = this.checkOtp("receipts", r, input.otp, live);
      // tok_sandbox_judges_unknown hides the verdict of a judged OTP behind its unknown code.
      if (otpFailure && !(card?.behaviour === "judges_unknown" && judgedOtp(otpFailure))) return otpFailure;
    }
    const declined = (code: "CARD_DECLINED" | "INSUFFICIENT_FUNDS", error: string) => {
      this.update("receipts", r.id, { error, card_behaviour: card?.behaviour ?? "declined" });
      return fail(402, code, error, { receipt: this.receiptBody(r.id) });
    };
    if (!card) return declined("CARD_DECLINED", "Card declined");
    switch (card.behaviour) {
      case "insufficient":
        return declined("INSUFFICIENT_FUNDS", "Insufficient funds");
      case "timeout":
      case "error":
        this.update("receipts", r.id, { card_behaviour: card.behaviour });
        return card.behaviour === "timeout" ? stalled() : fail(500, "INTERNAL_ERROR", "Upstream processing error");
      case "judges_unknown":
        this.update("receipts", r.id, { card_behaviour: card.behaviour });
        return unknownCode();
      case "pays_late":
        // The first deadline stands: a repeated pay does not put the late one off.
        this.sql.exec(
          "UPDATE receipts SET card_behaviour = ?, late_pay_due_ms = COALESCE(late_pay_due_ms, ?) WHERE id = ?",
          card.behaviour,
          Date.now() + msSetting(this.env.SANDBOX_LATE_MS, 20_000),
          r.id,
        );
        return stalled();
    }
    const now = Date.now();
    const charged = { error: null, rrn: rrn(), card_number: card.masked_pan, card_behaviour: card.behaviour };
    if (card.behaviour === "supplier_pending" || card.behaviour === "supplier_fails") {
      this.update("receipts", r.id, {
        ...charged,
        state: State.supplierPending,
        paid_ms: now,
        supplier_due_ms: now + msSetting(this.env.SANDBOX_SUPPLIER_DELAY_MS, 10_000),
      });
    } else if (r.is_hold === 1) {
      this.update("receipts", r.id, { ...charged, state: State.held, hold_status: "held" });
    } else {
      this.update("receipts", r.id, { ...charged, state: State.paid, paid_ms: now, ofd: JSON.stringify(saleOfd(r, now)) });
    }
    // Read without settling: the pay's own answer is 57 however short the supplier delay.
    const paid = this.receipt(r.id, false)!;
    const body = anonymous ? reducedReceiptBody(paid) : receiptBody(paid);
    return card.behaviour === "paid_timeout" ? { ok: true, body, stall: true } : ok(body);
  }

  holdConfirm(input: IdInput): Outcome<WireReceipt> {
    const r = this.receipt(input.id);
    if (!r) return receiptNotFound();
    if (r.state === State.cancelled) return fail(400, "RECEIPT_CANCELLED", "Receipt is cancelled", { receipt: receiptBody(r) });
    if (r.state !== State.held) return fail(400, "RECEIPT_NOT_HELD", "Receipt is not held", { receipt: receiptBody(r) });
    const now = Date.now();
    this.update("receipts", r.id, { state: State.paid, paid_ms: now, hold_status: "confirmed", ofd: JSON.stringify(saleOfd(r, now)) });
    return ok(this.receiptBody(r.id));
  }

  cancel(input: CancelInput): Outcome<WireReceipt> {
    const r = this.receipt(input.id);
    if (!r) return receiptNotFound();
    const qr = findMerchant(r.merchant_id)?.kind === "qr";
    if (qr || r.state === State.cancelled || r.state === State.supplierPending) {
      const why = qr ? "QR merchants do not allow cancel" : `Cancel is not allowed in state ${r.state}`;
      return fail(400, "CANCEL_NOT_ALLOWED", why, { receipt: receiptBody(r) });
    }
    const now = Date.now();
    this.update("receipts", r.id, {
      state: State.cancelled,
      cancelled_ms: now,
      cancel_reason: input.reason ?? null,
      cancelled_by: input.cancelledBy ?? null,
      ...(r.state === State.paid ? { ofd: JSON.stringify(refundOfd(r, now)) } : {}),
      ...(r.state === State.held ? { hold_status: "released" } : {}),
    });
    return ok(this.receiptBody(r.id));
  }

  checkId(input: IdInput): Outcome<WireReceipt> {
    const r = this.receipt(input.id);
    return r ? ok(receiptBody(r)) : receiptNotFound();
  }

  debugReceipt(id: string): DebugReceipt | null {
    const r = this.receipt(id);
    if (!r) return null;
    return {
      ...receiptBody(r),
      is_hold: r.is_hold === 1,
      hold_status: r.hold_status,
      otp_attempts: r.otp_attempts,
      wrong_otp_attempts: r.wrong_otps,
      expired_otp_attempts: r.expired_otps,
      otp_sent_at: r.otp_sent_ms,
      card_behaviour: r.card_behaviour,
      merchant_kind: findMerchant(r.merchant_id)?.kind ?? "unknown",
      cancel_reason: r.cancel_reason,
      cancelled_by: r.cancelled_by,
      supplier_due_at: r.supplier_due_ms,
      late_pay_due_at: r.late_pay_due_ms,
    };
  }

  // --- a2c transfers --------------------------------------------------------

  createTransfer(input: TransferCreateInput): Outcome<WireTransfer> {
    const rate = findRate(input.rate_id);
    if (!rate) return fail(404, "RATE_NOT_FOUND", "No rate with this rate_id");
    const sender = cardByToken(input.token);
    if (!sender) return fail(402, "CARD_DECLINED", "Sender card is not accepted");
    const duplicate = this.tidTaken(input.tid);
    if (duplicate) return duplicate;
    const id = ulid();
    this.sql.exec(
      `INSERT INTO transfers (id, tid, amount, commission, rate_id, sender_behaviour, receiver_pan,
        receiver_unavailable, is_verify, state, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      input.tid,
      input.amount,
      commissionOf(input.amount, rate.percent, rate.flat),
      rate.rate_id,
      sender.behaviour,
      maskPan(input.receiver_card),
      input.receiver_card === UNAVAILABLE_RECEIVER ? 1 : 0,
      input.amount >= A2C_VERIFY_FROM ? 1 : 0,
      State.created,
      Date.now(),
    );
    this.sql.exec(`INSERT INTO tids (tid, kind, record_id) VALUES (?, 'transfer', ?)`, input.tid, id);
    return ok(transferBody(this.transfer(id)!));
  }

  payTransfer(input: TransferPayInput): Outcome<WireTransfer> {
    const t = this.transfer(input.id);
    if (!t) return receiptNotFound();
    // The sender card is only known from the record; busy still judges nothing else.
    if (t.sender_behaviour === "busy") return busy();
    const current = { transfer: transferBody(t) };
    if (t.state === State.cancelled) return fail(400, "RECEIPT_CANCELLED", "Transfer is cancelled", current);
    if (t.state !== State.created) return fail(400, "RECEIPT_ALREADY_PAID", "Transfer is already paid", current);
    if (t.is_verify === 1) {
      // The seed shows no send step for a transfer: its OTP is live at any time.
      const otpFailure = this.checkOtp("transfers", t, input.otp, true);
      if (otpFailure && !(t.sender_behaviour === "judges_unknown" && judgedOtp(otpFailure))) return otpFailure;
    }
    switch (t.sender_behaviour) {
      case "insufficient":
        return this.declineTransfer(t.id, "INSUFFICIENT_FUNDS", "Insufficient funds");
      case "timeout":
        return stalled();
      case "error":
        return fail(500, "INTERNAL_ERROR", "Upstream processing error");
      case "judges_unknown":
        return unknownCode();
    }
    if (t.receiver_unavailable === 1) {
      return this.declineTransfer(t.id, "RECEIVER_UNAVAILABLE", "Receiver card cannot accept the transfer");
    }
    if (t.sender_behaviour === "pays_late") {
      this.sql.exec(
        "UPDATE transfers SET late_pay_due_ms = COALESCE(late_pay_due_ms, ?) WHERE id = ?",
        Date.now() + msSetting(this.env.SANDBOX_LATE_MS, 20_000),
        t.id,
      );
      return stalled();
    }
    this.update("transfers", t.id, { state: State.paid, paid_ms: Date.now(), error: "" });
    const body = this.transferBody(t.id);
    return t.sender_behaviour === "paid_timeout" ? { ok: true, body, stall: true } : ok(body);
  }

  /** A decline leaves the transfer payable (state 0) with its error set. */
  private declineTransfer(id: string, code: "INSUFFICIENT_FUNDS" | "RECEIVER_UNAVAILABLE", error: string): Failure {
    this.update("transfers", id, { error });
    return fail(402, code, error, { transfer: this.transferBody(id) });
  }

  getTransfer(input: IdInput): Outcome<WireTransfer> {
    const t = this.transfer(input.id);
    return t ? ok(transferBody(t)) : receiptNotFound();
  }

  debugTransfer(id: string): DebugTransfer | null {
    const t = this.transfer(id);
    if (!t) return null;
    return {
      ...transferBody(t),
      rate_id: t.rate_id,
      otp_attempts: t.otp_attempts,
      wrong_otp_attempts: t.wrong_otps,
      sender_behaviour: t.sender_behaviour,
      receiver_unavailable: t.receiver_unavailable === 1,
      late_pay_due_at: t.late_pay_due_ms,
    };
  }

  // --- call log (lets tests prove what did or did not reach the upstream) ---

  recordCall(call: Omit<SandboxCall, "seq" | "at">): void {
    this.sql.exec(
      "INSERT INTO calls (at, path, tid, id, status, code, request_id, otp) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      Date.now(),
      call.path,
      call.tid,
      call.id,
      call.status,
      call.code,
      call.request_id,
      call.otp ? 1 : 0,
    );
  }

  /** Oldest first; with `id`, only the calls naming that record. */
  calls(id?: string): SandboxCall[] {
    const rows =
      id === undefined
        ? this.sql.exec<Omit<SandboxCall, "otp"> & { otp: number }>("SELECT * FROM calls ORDER BY seq")
        : this.sql.exec<Omit<SandboxCall, "otp"> & { otp: number }>("SELECT * FROM calls WHERE id = ? ORDER BY seq", id);
    return rows.toArray().map((row) => ({ ...row, otp: row.otp === 1 }));
  }

  // --- shared rules ---------------------------------------------------------

  /** Receipts and transfers share one tid space, as the contract requires. */
  private tidTaken(tid: string): Failure | null {
    const taken = this.sql.exec<{ kind: string; record_id: string }>("SELECT kind, record_id FROM tids WHERE tid = ?", tid).toArray()[0];
    if (!taken) return null;
    const existing = taken.kind === "receipt" ? { receipt: this.receiptBody(taken.record_id) } : { transfer: this.transferBody(taken.record_id) };
    return fail(409, "TID_DUPLICATE", "tid is already used", existing);
  }

  /**
   * Every submitted OTP counts as received; the third wrong one cancels the
   * record. One that is not `live` (never sent, or past its lifetime) is
   * refused unjudged, right or wrong. The failure carries the record as it
   * stands afterwards.
   */
  private checkOtp(
    table: "receipts" | "transfers",
    record: { id: string; wrong_otps: number },
    otp: string | undefined,
    live: boolean,
  ): Failure | null {
    const verdict = this.submitOtp(table, record, otp, live);
    if (verdict === "correct") return null;
    const current = table === "receipts" ? { receipt: this.receiptBody(record.id) } : { transfer: this.transferBody(record.id) };
    switch (verdict) {
      case "missing":
        return fail(400, "OTP_REQUIRED", "An OTP is required to pay");
      case "expired":
        return fail(400, "OTP_EXPIRED", "No OTP was sent for this receipt, or it has expired; authorize again", current);
      case "wrong":
        return fail(400, "OTP_INVALID", "OTP is incorrect", { attempts_left: MAX_WRONG_OTPS - record.wrong_otps - 1, ...current });
      case "exceeded":
        return fail(400, "OTP_ATTEMPTS_EXCEEDED", "Too many incorrect OTPs; the receipt is cancelled", { attempts_left: 0, ...current });
    }
  }

  private submitOtp(table: "receipts" | "transfers", record: { id: string; wrong_otps: number }, otp: string | undefined, live: boolean): OtpVerdict {
    if (otp === undefined || otp === "") return "missing";
    if (!live) {
      // Only receipts have a send step, so only they are ever not live.
      this.sql.exec("UPDATE receipts SET otp_attempts = otp_attempts + 1, expired_otps = expired_otps + 1 WHERE id = ?", record.id);
      return "expired";
    }
    if (otp === CORRECT_OTP) {
      this.sql.exec(`UPDATE ${table} SET otp_attempts = otp_attempts + 1 WHERE id = ?`, record.id);
      return "correct";
    }
    const wrong = record.wrong_otps + 1;
    if (wrong < MAX_WRONG_OTPS) {
      this.sql.exec(`UPDATE ${table} SET otp_attempts = otp_attempts + 1, wrong_otps = ? WHERE id = ?`, wrong, record.id);
      return "wrong";
    }
    this.sql.exec(
      `UPDATE ${table} SET otp_attempts = otp_attempts + 1, wrong_otps = ?, state = ?, cancelled_ms = ?, error = ? WHERE id = ?`,
      wrong,
      State.cancelled,
      Date.now(),
      "OTP attempts exceeded",
      record.id,
    );
    return "exceeded";
  }

  /** Every read of a receipt settles a due supplier answer, then a due late pay, unless told not to. */
  private receipt(id: string, settle = true): ReceiptRow | undefined {
    const read = () => this.sql.exec<ReceiptRow>("SELECT * FROM receipts WHERE id = ?", id).toArray()[0];
    let row = read();
    if (!row || !settle) return row;
    for (const due of [supplierAnswer, latePay] as const) {
      const fields = due(row, Date.now(), rrn);
      if (fields) {
        this.update("receipts", id, fields);
        row = read()!;
      }
    }
    return row;
  }

  /** Every read of a transfer settles a due late pay first, unless told not to. */
  private transfer(id: string, settle = true): TransferRow | undefined {
    const row = this.sql.exec<TransferRow>("SELECT * FROM transfers WHERE id = ?", id).toArray()[0];
    const fields = row && settle ? lateTransferPay(row, Date.now()) : null;
    if (!fields) return row;
    this.update("transfers", id, fields);
    return this.transfer(id, false);
  }

  private receiptBody(id: string): WireReceipt {
    return receiptBody(this.receipt(id)!);
  }

  private transferBody(id: string): WireTransfer {
    return transferBody(this.transfer(id)!);
  }

  /** Column names come from this file only, never from a request. */
  private update(table: "receipts", id: string, fields: Partial<ReceiptRow>): void;
  private update(table: "transfers", id: string, fields: Partial<TransferRow>): void;
  private update(table: string, id: string, fields: Record<string, unknown>): void {
    const entries = Object.entries(fields);
    const set = entries.map(([column]) => `${column} = ?`).join(", ");
    this.sql.exec(`UPDATE ${table} SET ${set} WHERE id = ?`, ...entries.map(([, value]) => value), id);
  }
}
