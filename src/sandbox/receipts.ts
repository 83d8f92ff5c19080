/**
 * The sandbox's receipt operations, each as the seed answers it: create,
 * authorize (token or anonymous), pay (with the fault tokens' behaviours),
 * hold-confirm, cancel, check-id, and the debug view of /__sandbox/receipts.
 */
import {
  type AuthorizeAnswer,
  busy,
  type DebugReceipt,
  type Failure,
  fail,
  judgedOtp,
  type Outcome,
  ok,
  receiptNotFound,
  refusePay,
  stalled,
  unknownCode,
} from "./answers";
import { cardByNumber, cardByToken, commissionOf, findMerchant, type SandboxCard } from "./catalog";
import { msSetting } from "./clockwork";
import type { CancelInput, CardRef, IdInput, PayInput, ReceiptCreateInput } from "./schemas";
import { nowOf, randomHex, rrn, type SandboxStore } from "./store";
import {
  fiscalWithheld,
  type Ofd,
  type ReceiptRow,
  type ReducedReceipt,
  receiptBody,
  reducedReceiptBody,
  refundOfd,
  State,
  saleOfd,
  type WireReceipt,
} from "./wire";

function resolveCard(card: CardRef): SandboxCard | undefined {
  return "token" in card ? cardByToken(card.token) : cardByNumber(card.number, card.expire);
}

/**
 * A sale or refund registered at the fiscal data operator: fiscalized at
 * once, or for a tok_sandbox_fiscal_late card registered without its fiscal
 * sign and QR address, which appear SANDBOX_FISCAL_DELAY_MS later.
 */
function fiscalized(env: Env, r: ReceiptRow, ofd: Ofd, now: number): Pick<ReceiptRow, "ofd" | "fiscal_due_ms"> {
  if (r.card_behaviour !== "fiscal_late") return { ofd: JSON.stringify(ofd), fiscal_due_ms: null };
  return { ofd: JSON.stringify(fiscalWithheld(ofd)), fiscal_due_ms: now + msSetting(env.SANDBOX_FISCAL_DELAY_MS, 30_000) };
}

export function createReceipt(store: SandboxStore, input: ReceiptCreateInput): Outcome<WireReceipt> {
  const merchant = findMerchant(input.merchant_id);
  if (!merchant) return fail(404, "MERCHANT_NOT_FOUND", "No merchant with this merchant_id");
  if (input.amount < merchant.min_amount || input.amount > merchant.max_amount) {
    return fail(400, "AMOUNT_OUT_OF_RANGE", "Amount is outside the merchant's limits", {
      min_amount: merchant.min_amount,
      max_amount: merchant.max_amount,
    });
  }
  const duplicate = store.tidTaken(input.tid);
  if (duplicate) return duplicate;
  const id = randomHex(12);
  store.sql.exec(
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
  store.sql.exec(`INSERT INTO tids (tid, kind, record_id) VALUES (?, 'receipt', ?)`, input.tid, id);
  return ok(receiptBody(store.receipt(id)!));
}

/**
 * What authorize and pay look at first: a busy service answers before it
 * judges anything (no record, no OTP, no counter); then the receipt must
 * exist and still wait for payment.
 */
function awaitingPayment(store: SandboxStore, card: SandboxCard | undefined, id: string): ReceiptRow | Failure {
  if (card?.behaviour === "busy") return busy();
  const r = store.receipt(id);
  if (!r) return receiptNotFound();
  return refusePay(r) ?? r;
}

/** Token and anonymous authorize differ only in how the card is named. */
export function authorize(store: SandboxStore, env: Env, input: { id: string; card: CardRef }): Outcome<AuthorizeAnswer> {
  const card = resolveCard(input.card);
  const r = awaitingPayment(store, card, input.id);
  if ("ok" in r) return r;
  if (!card) return fail(402, "CARD_DECLINED", "Card is not accepted", { receipt: receiptBody(r) });
  const wait = msSetting(env.SANDBOX_OTP_WAIT_MS, 60_000);
  const now = nowOf(r);
  if (r.otp_sent_ms !== null && now - r.otp_sent_ms < wait) {
    return fail(429, "OTP_RESEND_TOO_SOON", "An OTP was sent recently", { wait: wait - (now - r.otp_sent_ms) });
  }
  store.update("receipts", r.id, { otp_sent_ms: now });
  return ok({ id: r.id, sent: true, phone: card.phone, wait });
}

/** `otpTtlMs`: how long after the last send an OTP stays right (SANDBOX_OTP_TTL_MS, read by the caller). */
export function payReceipt(
  store: SandboxStore,
  env: Env,
  input: PayInput,
  anonymous: boolean,
  otpTtlMs: number,
): Outcome<WireReceipt | ReducedReceipt> {
  const card = resolveCard(input.card);
  const r = awaitingPayment(store, card, input.id);
  if ("ok" in r) return r;
  // Only a receipt that needs an OTP counts one; the seed lets the others pay without it.
  if (anonymous || r.is_verify === 1) {
    // Lazily on read, as the supplier's answer: no timer ends an OTP's life.
    const live = r.otp_sent_ms !== null && nowOf(r) - r.otp_sent_ms < otpTtlMs;
    const otpFailure = store.checkOtp("receipts", r, input.otp, live);
    // tok_sandbox_judges_unknown hides the verdict of a judged OTP behind its unknown code.
    if (otpFailure && !(card?.behaviour === "judges_unknown" && judgedOtp(otpFailure))) return otpFailure;
  }
  const declined = (code: "CARD_DECLINED" | "INSUFFICIENT_FUNDS", error: string) => {
    store.update("receipts", r.id, { error, card_behaviour: card?.behaviour ?? "declined" });
    return fail(402, code, error, { receipt: store.receiptBody(r.id) });
  };
  if (!card) return declined("CARD_DECLINED", "Card declined");
  switch (card.behaviour) {
    case "insufficient":
      return declined("INSUFFICIENT_FUNDS", "Insufficient funds");
    case "timeout":
    case "error":
      store.update("receipts", r.id, { card_behaviour: card.behaviour });
      return card.behaviour === "timeout" ? stalled() : fail(500, "INTERNAL_ERROR", "Upstream processing error");
    case "judges_unknown":
      store.update("receipts", r.id, { card_behaviour: card.behaviour });
      return unknownCode();
    case "pays_late":
      // The first deadline stands: a repeated pay does not put the late one off.
      store.sql.exec(
        "UPDATE receipts SET card_behaviour = ?, late_pay_due_ms = COALESCE(late_pay_due_ms, ?) WHERE id = ?",
        card.behaviour,
        nowOf(r) + msSetting(env.SANDBOX_LATE_MS, 20_000),
        r.id,
      );
      return stalled();
  }
  const now = nowOf(r);
  const charged = { error: null, rrn: rrn(), card_number: card.masked_pan, card_behaviour: card.behaviour };
  if (card.behaviour === "supplier_pending" || card.behaviour === "supplier_fails") {
    store.update("receipts", r.id, {
      ...charged,
      state: State.supplierPending,
      paid_ms: now,
      supplier_due_ms: now + msSetting(env.SANDBOX_SUPPLIER_DELAY_MS, 10_000),
    });
  } else if (r.is_hold === 1) {
    store.update("receipts", r.id, { ...charged, state: State.held, hold_status: "held" });
  } else {
    const row = { ...r, ...charged };
    store.update("receipts", r.id, { ...charged, state: State.paid, paid_ms: now, ...fiscalized(env, row, saleOfd(r, now), now) });
  }
  // Read without settling: the pay's own answer is 57 however short the supplier delay.
  const paid = store.receipt(r.id, false)!;
  const body = anonymous ? reducedReceiptBody(paid) : receiptBody(paid);
  return card.behaviour === "paid_timeout" ? { ok: true, body, stall: true } : ok(body);
}

export function holdConfirm(store: SandboxStore, env: Env, input: IdInput): Outcome<WireReceipt> {
  const r = store.receipt(input.id);
  if (!r) return receiptNotFound();
  if (r.state === State.cancelled) return fail(400, "RECEIPT_CANCELLED", "Receipt is cancelled", { receipt: receiptBody(r) });
  if (r.state !== State.held) return fail(400, "RECEIPT_NOT_HELD", "Receipt is not held", { receipt: receiptBody(r) });
  const now = nowOf(r);
  store.update("receipts", r.id, { state: State.paid, paid_ms: now, hold_status: "confirmed", ...fiscalized(env, r, saleOfd(r, now), now) });
  return ok(store.receiptBody(r.id));
}

export function cancel(store: SandboxStore, env: Env, input: CancelInput): Outcome<WireReceipt> {
  const r = store.receipt(input.id);
  if (!r) return receiptNotFound();
  const qr = findMerchant(r.merchant_id)?.kind === "qr";
  if (qr || r.state === State.cancelled || r.state === State.supplierPending) {
    const why = qr ? "QR merchants do not allow cancel" : `Cancel is not allowed in state ${r.state}`;
    return fail(400, "CANCEL_NOT_ALLOWED", why, { receipt: receiptBody(r) });
  }
  const now = nowOf(r);
  store.update("receipts", r.id, {
    state: State.cancelled,
    cancelled_ms: now,
    cancel_reason: input.reason ?? null,
    cancelled_by: input.cancelledBy ?? null,
    // A paid receipt's refund is registered at the fiscal data operator: late too for a tok_sandbox_fiscal_late card.
    ...(r.state === State.paid ? fiscalized(env, r, refundOfd(r, now), now) : {}),
    ...(r.state === State.held ? { hold_status: "released" } : {}),
  });
  return ok(store.receiptBody(r.id));
}

export function checkId(store: SandboxStore, input: IdInput): Outcome<WireReceipt> {
  const r = store.receipt(input.id);
  return r ? ok(receiptBody(r)) : receiptNotFound();
}

export function debugReceipt(store: SandboxStore, id: string): DebugReceipt | null {
  const r = store.receipt(id);
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
    fiscal_due_at: r.fiscal_due_ms,
  };
}
