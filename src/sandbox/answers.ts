/**
 * What the sandbox answers: its error codes (the seed's, plus the fault
 * tokens' own), failures and outcomes, and the debug views of
 * /__sandbox/receipts and /__sandbox/a2c.
 */
import { type ReceiptRow, receiptBody, State, type WireReceipt, type WireTransfer } from "./wire";

export type ErrorCode =
  | "VALIDATION_ERROR"
  | "UNAUTHORIZED"
  | "NOT_FOUND"
  | "RECEIPT_NOT_FOUND"
  | "MERCHANT_NOT_FOUND"
  | "RATE_NOT_FOUND"
  | "TID_DUPLICATE"
  | "AMOUNT_OUT_OF_RANGE"
  | "OTP_REQUIRED"
  | "OTP_INVALID"
  | "OTP_ATTEMPTS_EXCEEDED"
  | "RECEIPT_CANCELLED"
  | "RECEIPT_ALREADY_PAID"
  | "RECEIPT_NOT_HELD"
  | "CANCEL_NOT_ALLOWED"
  | "INSUFFICIENT_FUNDS"
  | "RECEIVER_UNAVAILABLE"
  | "CARD_DECLINED"
  | "OTP_RESEND_TOO_SOON"
  | "INTERNAL_ERROR"
  // Test clocks and triggers only (src/sandbox/test-clock.ts): never on the wire.
  | "TRIGGER_NOT_APPLICABLE"
  | "BUSY"
  | "OTP_EXPIRED"
  | "CANCEL_ACCESS_DENIED"
  /** tok_sandbox_judges_unknown: a code no gateway knows, after the OTP was judged. */
  | "SANDBOX_UNKNOWN";

export type FailureExtra = {
  attempts_left?: number;
  wait?: number;
  min_amount?: number;
  max_amount?: number;
  details?: { path: string; message: string }[];
  receipt?: WireReceipt;
  transfer?: WireTransfer;
};

export type Failure = {
  ok: false;
  status: 400 | 401 | 402 | 403 | 404 | 409 | 429 | 500 | 503;
  code: ErrorCode;
  message: string;
  extra?: FailureExtra;
  /** tok_sandbox_timeout and tok_sandbox_pays_late: the entrypoint sits on the answer before sending it. */
  stall?: boolean;
  /** Seconds, sent as the Retry-After header (BUSY). */
  retryAfter?: number;
};
/** `stall` on a success: tok_sandbox_paid_timeout has paid, and the answer comes too late. */
export type Outcome<T> = { ok: true; body: T; stall?: boolean } | Failure;
export type AuthorizeAnswer = { id: string; sent: true; phone: string; wait: number };
export type DebugReceipt = WireReceipt & {
  is_hold: boolean;
  hold_status: string | null;
  otp_attempts: number;
  wrong_otp_attempts: number;
  /** Of otp_attempts, those refused as OTP_EXPIRED: received, never judged. */
  expired_otp_attempts: number;
  otp_sent_at: number | null;
  card_behaviour: string | null;
  merchant_kind: string;
  cancel_reason: string | null;
  cancelled_by: string | null;
  /** When the supplier answers a 57 receipt (ms), null when nothing is pending. */
  supplier_due_at: number | null;
  /** When a tok_sandbox_pays_late pay takes effect (ms), null when none is pending. */
  late_pay_due_at: number | null;
  /** When the fiscal data of a tok_sandbox_fiscal_late sale or refund appears (ms), null when none is missing. */
  fiscal_due_at: number | null;
};
/**
 * One API call the sandbox answered; identifiers only, never card data or OTPs.
 * `otp` says whether the body carried a non-empty OTP, never its value.
 */
export type SandboxCall = {
  seq: number;
  at: number;
  path: string;
  tid: string | null;
  id: string | null;
  status: number;
  code: string | null;
  request_id: string | null;
  otp: boolean;
};
export type DebugTransfer = WireTransfer & {
  rate_id: number;
  otp_attempts: number;
  wrong_otp_attempts: number;
  sender_behaviour: string;
  receiver_unavailable: boolean;
  /** When a tok_sandbox_pays_late pay takes effect (ms), null when none is pending. */
  late_pay_due_at: number | null;
};

export const fail = (status: Failure["status"], code: ErrorCode, message: string, extra?: FailureExtra): Failure => ({
  ok: false,
  status,
  code,
  message,
  ...(extra ? { extra } : {}),
});
export const ok = <T>(body: T): Outcome<T> => ({ ok: true, body });

export type OtpVerdict = "missing" | "expired" | "correct" | "wrong" | "exceeded";

/** The refusals that mean the OTP was judged (counted as right or wrong). */
export const judgedOtp = (failure: Failure | null) => failure?.code === "OTP_INVALID" || failure?.code === "OTP_ATTEMPTS_EXCEEDED";

/**
 * tok_sandbox_judges_unknown: the OTP (if any) was judged and counted, nothing
 * was paid, and the answer is a code the gateway does not know. The bare
 * envelope, no record: a gateway cannot learn the outcome from the answer.
 */
export const unknownCode = (): Failure => fail(400, "SANDBOX_UNKNOWN", "The payment service refused the request for a reason it does not name");

/** tok_sandbox_timeout and tok_sandbox_pays_late: a 500, sent only after SANDBOX_TIMEOUT_DELAY_MS. */
export const stalled = (): Failure => ({ ...fail(500, "INTERNAL_ERROR", "Upstream processing error"), stall: true });

export const receiptNotFound = () => fail(404, "RECEIPT_NOT_FOUND", "No receipt with this id");
/** tok_sandbox_busy: answered before anything about the request is judged. */
export const busy = (): Failure => ({ ...fail(503, "BUSY", "The payment service is busy; nothing was done, try again later"), retryAfter: 1 });

/** Authorize and pay both need a receipt still waiting for payment. */
export function refusePay(r: ReceiptRow): Failure | null {
  if (r.state === State.cancelled) return fail(400, "RECEIPT_CANCELLED", "Receipt is cancelled", { receipt: receiptBody(r) });
  if (r.state !== State.created) return fail(400, "RECEIPT_ALREADY_PAID", "Receipt is already paid", { receipt: receiptBody(r) });
  return null;
}
