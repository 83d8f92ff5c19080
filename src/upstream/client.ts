/**
 * The one module that talks to the payment service. It owns the timeout, the
 * request id it forwards, the partner credential, the mapping of upstream
 * errors to the contract's codes, and the normalization of upstream spellings.
 * Nothing else in the gateway calls fetch.
 */
import { readConfig } from "../config";
import type { Failure } from "../errors";
import { log } from "../redact";
import type {
  AuthorizeBody,
  CreateReceiptInput,
  NumberCardInput,
  ReceiptBody,
  ReducedReceiptBody,
  TokenCardInput,
  TransferBody,
} from "../schemas";
import {
  isReceiptLike,
  isTransferLike,
  normalizeAuthorize,
  normalizeReceipt,
  normalizeReducedReceipt,
  normalizeTransfer,
} from "./normalize";

/**
 * How a call ended, beyond success. `unknown` means the upstream may or may
 * not have acted (timeout, 5xx, broken answer): callers that move money must
 * reconcile before they try again.
 */
export type UpstreamFailure = {
  ok: false;
  failure: Failure;
  outcome: "rejected" | "unknown";
  /** The upstream's own code, e.g. OTP_INVALID. */
  upstreamCode?: string;
  /** The record as the upstream says it stands after the failure, if it said. */
  receipt?: ReceiptBody;
  transfer?: TransferBody;
};

export type UpstreamResult<T> = { ok: true; value: T } | UpstreamFailure;

type Mapping = Omit<Failure, "message"> & { message?: string };

/** Upstream error codes (docs/upstream-wire.md) to the contract's. */
const ERROR_MAP: Record<string, Mapping> = {
  VALIDATION_ERROR: { code: "invalid_request" },
  RECEIPT_NOT_FOUND: { code: "receipt_not_found", message: "No such receipt." },
  MERCHANT_NOT_FOUND: {
    code: "invalid_request",
    message: "Unknown merchant.",
    details: [{ path: "merchant_id", message: "unknown merchant" }],
  },
  RATE_NOT_FOUND: {
    code: "invalid_request",
    message: "Unknown rate.",
    details: [{ path: "rate_id", message: "unknown rate_id" }],
  },
  TID_DUPLICATE: { code: "tid_conflict", message: "This tid is already used at the payment service." },
  AMOUNT_OUT_OF_RANGE: { code: "amount_out_of_range", message: "The amount is outside the merchant's limits." },
  OTP_REQUIRED: { code: "otp_required", message: "This payment needs the OTP sent by authorize." },
  OTP_INVALID: { code: "otp_invalid", message: "The OTP is wrong." },
  OTP_ATTEMPTS_EXCEEDED: {
    code: "otp_attempts_exhausted",
    message: "Three wrong OTPs: the receipt is cancelled. Create a new one.",
  },
  RECEIPT_CANCELLED: { code: "receipt_cancelled", message: "The receipt is cancelled." },
  RECEIPT_ALREADY_PAID: { code: "receipt_already_paid", message: "The receipt is already paid." },
  RECEIPT_NOT_HELD: { code: "receipt_not_held", message: "The receipt holds no amount to confirm." },
  CANCEL_NOT_ALLOWED: { code: "cancel_not_allowed", message: "The payment service refuses to cancel this receipt." },
  HOLD_NOT_ENABLED: { code: "hold_not_enabled", message: "The hold function is not enabled for this partner." },
  INSUFFICIENT_FUNDS: { code: "card_declined", decline_reason: "insufficient_funds", message: "Card declined: insufficient funds." },
  RECEIVER_UNAVAILABLE: {
    code: "card_declined",
    decline_reason: "receiver_unavailable",
    message: "Transfer declined: the receiver card cannot take it.",
  },
  CARD_DECLINED: { code: "card_declined", decline_reason: "declined", message: "Card declined." },
  OTP_RESEND_TOO_SOON: { code: "otp_resend_too_soon", message: "Wait before asking for another OTP." },
};

export class UpstreamClient {
  readonly #env: Env;
  readonly #requestId: string;

  constructor(env: Env, requestId: string) {
    this.#env = env;
    this.#requestId = requestId;
  }

  // --- receipts -------------------------------------------------------------

  createReceipt(input: CreateReceiptInput): Promise<UpstreamResult<ReceiptBody>> {
    return this.#call("receipt/create", input, receiptOf);
  }

  authorize(id: string, card: TokenCardInput | NumberCardInput): Promise<UpstreamResult<AuthorizeBody>> {
    const path = "token" in card ? "receipt/authorize" : "receipt/anonymous/authorize";
    return this.#call(path, { id, card }, (raw) => normalizeAuthorize(raw, id));
  }

  pay(id: string, card: TokenCardInput, otp: string | undefined): Promise<UpstreamResult<ReceiptBody>> {
    return this.#call("receipt/pay", { id, card, ...(otp === undefined ? {} : { otp }) }, receiptOf);
  }

  anonymousPay(id: string, card: NumberCardInput, otp: string): Promise<UpstreamResult<ReducedReceiptBody>> {
    return this.#call("receipt/anonymous/pay", { id, card, otp }, (raw) =>
      isReceiptLike(raw) ? normalizeReducedReceipt(raw) : undefined,
    );
  }

  holdConfirm(id: string): Promise<UpstreamResult<ReceiptBody>> {
    return this.#call("receipt/hold-confirm", { id }, receiptOf);
  }

  cancel(id: string, reason?: string, cancelledBy?: string): Promise<UpstreamResult<ReceiptBody>> {
    return this.#call("receipt/cancel", { id, reason, cancelledBy }, receiptOf);
  }

  checkId(id: string): Promise<UpstreamResult<ReceiptBody>> {
    return this.#call("receipt/check-id", { id }, receiptOf);
  }

  // --- transfers ------------------------------------------------------------

  createTransfer(input: {
    tid: string;
    amount: number;
    rate_id: number;
    receiver_card: string;
    token: string;
  }): Promise<UpstreamResult<TransferBody>> {
    return this.#call("a2c/create", input, transferOf);
  }

  payTransfer(id: string, otp: string | undefined): Promise<UpstreamResult<TransferBody>> {
    return this.#call("a2c/pay", { id, ...(otp === undefined ? {} : { otp }) }, transferOf);
  }

  getTransfer(id: string): Promise<UpstreamResult<TransferBody>> {
    return this.#call("a2c/get-by-id", { id }, transferOf);
  }

  // --- transport ------------------------------------------------------------

  async #call<T>(path: string, body: unknown, parse: (raw: Record<string, unknown>) => T | undefined): Promise<UpstreamResult<T>> {
    const config = readConfig(this.#env);
    const started = Date.now();
    const request = new Request(`${config.upstreamBaseUrl}/api/v1/partner/${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        authorization: `Bearer ${config.upstreamApiKey}`,
        "x-request-id": this.#requestId,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(config.upstreamTimeoutMs),
    });

    let response: Response;
    let raw: unknown;
    try {
      response = await (this.#env.UPSTREAM ? this.#env.UPSTREAM.fetch(request) : fetch(request));
      raw = await response.json().catch(() => undefined);
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
      this.#log(path, started, timedOut ? "timeout" : "network_error");
      return timedOut
        ? unknownOutcome("upstream_timeout", "The payment service did not answer in time.")
        : unknownOutcome("upstream_error", "The payment service could not be reached.");
    }

    if (response.ok) {
      const value = typeof raw === "object" && raw !== null ? parse(raw as Record<string, unknown>) : undefined;
      this.#log(path, started, value === undefined ? "malformed" : "ok", response.status);
      if (value === undefined) return unknownOutcome("upstream_error", "The payment service sent an answer the gateway cannot read.");
      return { ok: true, value };
    }

    const envelope = (raw ?? {}) as { error?: { code?: unknown; message?: unknown }; attempts_left?: unknown; receipt?: unknown; transfer?: unknown };
    const upstreamCode = typeof envelope.error?.code === "string" ? envelope.error.code : `HTTP_${response.status}`;
    this.#log(path, started, upstreamCode, response.status);

    const mapping = response.status < 500 ? ERROR_MAP[upstreamCode] : undefined;
    if (!mapping) {
      // 5xx or a code we do not know: the upstream may have acted; never guess.
      const failure = unknownOutcome("upstream_error", "The payment service failed to handle the request.");
      failure.failure.upstream_code = upstreamCode;
      return failure;
    }

    const { message, ...rest } = mapping;
    const failure: Failure = {
      ...rest,
      message: message ?? "The payment service refused the request.",
      upstream_code: upstreamCode,
    };
    if (failure.code === "otp_invalid" && typeof envelope.attempts_left === "number") failure.attempts_left = envelope.attempts_left;
    if (failure.code === "otp_resend_too_soon") failure.retry_after = Number(response.headers.get("retry-after")) || 1;
    return {
      ok: false,
      outcome: "rejected",
      failure,
      upstreamCode,
      ...(isReceiptLike(envelope.receipt) ? { receipt: normalizeReceipt(envelope.receipt) } : {}),
      ...(isTransferLike(envelope.transfer) ? { transfer: normalizeTransfer(envelope.transfer) } : {}),
    };
  }

  #log(path: string, started: number, outcome: string, status?: number): void {
    log("info", "upstream_call", {
      request_id: this.#requestId,
      path,
      status,
      outcome,
      duration_ms: Date.now() - started,
    });
  }
}

const receiptOf = (raw: Record<string, unknown>) => (isReceiptLike(raw) ? normalizeReceipt(raw) : undefined);
const transferOf = (raw: Record<string, unknown>) => (isTransferLike(raw) ? normalizeTransfer(raw) : undefined);

function unknownOutcome(code: "upstream_error" | "upstream_timeout", message: string): UpstreamFailure & { failure: Failure } {
  return { ok: false, outcome: "unknown", failure: { code, message } };
}
