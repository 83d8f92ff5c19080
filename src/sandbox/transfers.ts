/**
 * The sandbox's a2c transfers: create, pay (the sender card's behaviour is
 * read from the record), get-by-id, and the debug view of /__sandbox/a2c.
 */
import { ulid } from "ulid";
import { busy, type DebugTransfer, type Failure, fail, judgedOtp, type Outcome, ok, receiptNotFound, stalled, unknownCode } from "./answers";
import { A2C_VERIFY_FROM, cardByToken, commissionOf, findRate, maskPan, UNAVAILABLE_RECEIVER } from "./catalog";
import { msSetting } from "./clockwork";
import type { IdInput, TransferCreateInput, TransferPayInput } from "./schemas";
import { nowOf, type SandboxStore } from "./store";
import { State, transferBody, type WireTransfer } from "./wire";

export function createTransfer(store: SandboxStore, input: TransferCreateInput): Outcome<WireTransfer> {
  const rate = findRate(input.rate_id);
  if (!rate) return fail(404, "RATE_NOT_FOUND", "No rate with this rate_id");
  const sender = cardByToken(input.token);
  if (!sender) return fail(402, "CARD_DECLINED", "Sender card is not accepted");
  const duplicate = store.tidTaken(input.tid);
  if (duplicate) return duplicate;
  const id = ulid();
  store.sql.exec(
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
  store.sql.exec(`INSERT INTO tids (tid, kind, record_id) VALUES (?, 'transfer', ?)`, input.tid, id);
  return ok(transferBody(store.transfer(id)!));
}

export function payTransfer(store: SandboxStore, env: Env, input: TransferPayInput): Outcome<WireTransfer> {
  const t = store.transfer(input.id);
  if (!t) return receiptNotFound();
  // The sender card is only known from the record; busy still judges nothing else.
  if (t.sender_behaviour === "busy") return busy();
  const current = { transfer: transferBody(t) };
  if (t.state === State.cancelled) return fail(400, "RECEIPT_CANCELLED", "Transfer is cancelled", current);
  if (t.state !== State.created) return fail(400, "RECEIPT_ALREADY_PAID", "Transfer is already paid", current);
  if (t.is_verify === 1) {
    // The seed shows no send step for a transfer: its OTP is live at any time.
    const otpFailure = store.checkOtp("transfers", t, input.otp, true);
    if (otpFailure && !(t.sender_behaviour === "judges_unknown" && judgedOtp(otpFailure))) return otpFailure;
  }
  switch (t.sender_behaviour) {
    case "insufficient":
      return declineTransfer(store, t.id, "INSUFFICIENT_FUNDS", "Insufficient funds");
    case "timeout":
      return stalled();
    case "error":
      return fail(500, "INTERNAL_ERROR", "Upstream processing error");
    case "judges_unknown":
      return unknownCode();
  }
  if (t.receiver_unavailable === 1) {
    return declineTransfer(store, t.id, "RECEIVER_UNAVAILABLE", "Receiver card cannot accept the transfer");
  }
  if (t.sender_behaviour === "pays_late") {
    store.sql.exec(
      "UPDATE transfers SET late_pay_due_ms = COALESCE(late_pay_due_ms, ?) WHERE id = ?",
      nowOf(t) + msSetting(env.SANDBOX_LATE_MS, 20_000),
      t.id,
    );
    return stalled();
  }
  store.update("transfers", t.id, { state: State.paid, paid_ms: nowOf(t), error: "" });
  const body = store.transferBody(t.id);
  return t.sender_behaviour === "paid_timeout" ? { ok: true, body, stall: true } : ok(body);
}

/** A decline leaves the transfer payable (state 0) with its error set. */
function declineTransfer(store: SandboxStore, id: string, code: "INSUFFICIENT_FUNDS" | "RECEIVER_UNAVAILABLE", error: string): Failure {
  store.update("transfers", id, { error });
  return fail(402, code, error, { transfer: store.transferBody(id) });
}

export function getTransfer(store: SandboxStore, input: IdInput): Outcome<WireTransfer> {
  const t = store.transfer(input.id);
  return t ? ok(transferBody(t)) : receiptNotFound();
}

export function debugTransfer(store: SandboxStore, id: string): DebugTransfer | null {
  const t = store.transfer(id);
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
