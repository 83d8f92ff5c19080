/**
 * The one module that talks to the payment service. It owns the timeout, the
 * request id it forwards, the partner credential, the mapping of upstream
 * errors to the contract's codes, and the normalization of upstream spellings.
 * Nothing else in the gateway calls fetch.
 */

import type {
  AuthorizeBody,
  CreateReceiptInput,
  NumberCardInput,
  ReceiptBody,
  ReducedReceiptBody,
  TokenCardInput,
  TransferBody,
} from "../api/schemas";
import { readConfig } from "../config/config";
import type { Failure } from "../errors/errors";
import { metric, type UpstreamOutcome } from "../metrics/metrics";
import { noteUpstreamCall } from "../shared/log";
import { redact } from "../shared/redact";
import type { RecordCalls, TransferCreate, UpstreamFailure, UpstreamResult } from "./calls";
import { normalizeAuthorize, normalizeReceipt, normalizeReducedReceipt, normalizeTransfer } from "./normalize";

// The result types live in ./calls, below the kinds; named here too, where callers of the client look for them.

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
  AMOUNT_OUT_OF_RANGE: { code: "amount_out_of_range", message: "The amount is outside the merchant's limits (min_amount, max_amount)." },
  OTP_REQUIRED: { code: "otp_required", message: "This payment needs the OTP sent by authorize." },
  OTP_INVALID: { code: "otp_invalid", message: "The OTP is wrong." },
  OTP_ATTEMPTS_EXCEEDED: {
    code: "otp_attempts_exhausted",
    message: "The payment service says the OTP guesses for this receipt are used up: it is cancelled. Create a new one.",
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
  OTP_EXPIRED: {
    code: "otp_expired",
    message: "No OTP was sent for this receipt, or it expired: call authorize again. This did not count as a guess.",
  },
  CANCEL_ACCESS_DENIED: {
    code: "forbidden",
    message:
      "The payment service does not let this partner cancel receipts: ask the payment service's support to cancel it, giving the receipt id and the reason.",
  },
};

/** Upstream codes that say an OTP in the request was never judged (rule 2). */
const NOT_JUDGED = new Set([
  "OTP_EXPIRED",
  "UNAUTHORIZED",
  "BUSY",
  "VALIDATION_ERROR",
  "RECEIPT_NOT_FOUND",
  "RECEIPT_CANCELLED",
  "RECEIPT_ALREADY_PAID",
]);

/** Longest upstream message quoted back in upstream_refused. */
const MAX_UPSTREAM_MESSAGE = 200;

export class UpstreamClient implements RecordCalls {
  readonly #env: Env;
  readonly #requestId: string;

  readonly #timeoutMs: number | undefined;

  /** `timeoutMs` shortens the deployment's UPSTREAM_TIMEOUT_MS for this client's calls (readiness probes). */
  constructor(env: Env, requestId: string, timeoutMs?: number) {
    this.#env = env;
    this.#requestId = requestId;
    this.#timeoutMs = timeoutMs;
  }

  // --- receipts -------------------------------------------------------------

  createReceipt(input: CreateReceiptInput): Promise<UpstreamResult<ReceiptBody>> {
    return this.#call("receipt/create", input, normalizeReceipt);
  }

  authorize(id: string, card: TokenCardInput | NumberCardInput): Promise<UpstreamResult<AuthorizeBody>> {
    const path = "token" in card ? "receipt/authorize" : "receipt/anonymous/authorize";
    return this.#call(path, { id, card }, (raw) => normalizeAuthorize(raw, id));
  }

  pay(id: string, card: TokenCardInput, otp: string | undefined): Promise<UpstreamResult<ReceiptBody>> {
    return this.#call("receipt/pay", { id, card, ...(otp === undefined ? {} : { otp }) }, (raw) => sameId(normalizeReceipt(raw), id));
  }

  anonymousPay(id: string, card: NumberCardInput, otp: string): Promise<UpstreamResult<ReducedReceiptBody>> {
    return this.#call("receipt/anonymous/pay", { id, card, otp }, (raw) => sameId(normalizeReducedReceipt(raw), id));
  }

  holdConfirm(id: string): Promise<UpstreamResult<ReceiptBody>> {
    return this.#call("receipt/hold-confirm", { id }, (raw) => sameId(normalizeReceipt(raw), id));
  }

  async cancel(id: string, reason?: string, cancelledBy?: string): Promise<UpstreamResult<ReceiptBody>> {
    const result = await this.#call("receipt/cancel", { id, reason, cancelledBy }, (raw) => sameId(normalizeReceipt(raw), id));
    // Support needs the receipt id, so the instruction names it. The caller's reason is not quoted
    // back: it is free text, and an error message must never carry what it might hold.
    if (!result.ok && result.upstreamCode === "CANCEL_ACCESS_DENIED") {
      result.failure.message = `The payment service does not let this partner cancel receipts, and nothing was cancelled: ask the payment service's support to cancel receipt ${id}, giving this receipt id and the reason for the cancel.`;
    }
    return result;
  }

  checkId(id: string): Promise<UpstreamResult<ReceiptBody>> {
    return this.#call("receipt/check-id", { id }, (raw) => sameId(normalizeReceipt(raw), id));
  }

  // --- transfers ------------------------------------------------------------

  createTransfer(input: TransferCreate): Promise<UpstreamResult<TransferBody>> {
    return this.#call("a2c/create", input, normalizeTransfer);
  }

  payTransfer(id: string, otp: string | undefined): Promise<UpstreamResult<TransferBody>> {
    return this.#call("a2c/pay", { id, ...(otp === undefined ? {} : { otp }) }, (raw) => sameTransfer(normalizeTransfer(raw), id));
  }

  getTransfer(id: string): Promise<UpstreamResult<TransferBody>> {
    return this.#call("a2c/get-by-id", { id }, (raw) => sameTransfer(normalizeTransfer(raw), id));
  }

  // --- transport ------------------------------------------------------------

  async #call<T>(path: string, body: object, parse: (raw: unknown) => T | undefined): Promise<UpstreamResult<T>> {
    const config = readConfig(this.#env);
    const started = Date.now();
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), Math.min(config.upstreamTimeoutMs, this.#timeoutMs ?? Number.POSITIVE_INFINITY));
    const request = new Request(`${config.upstreamBaseUrl}/api/v1/partner/${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        authorization: `Bearer ${config.upstreamApiKey}`,
        "x-request-id": this.#requestId,
      },
      body: JSON.stringify(body),
      signal: deadline.signal,
    });

    let response: Response;
    let raw: unknown;
    try {
      response = await (this.#env.UPSTREAM ? this.#env.UPSTREAM.fetch(request) : fetch(request));
      raw = await response.json().catch(() => undefined);
    } catch {
      const timedOut = deadline.signal.aborted;
      this.#log(path, started, timedOut ? "timeout" : "network_error");
      return timedOut
        ? unknownOutcome("upstream_timeout", "The payment service did not answer in time.")
        : unknownOutcome("upstream_error", "The payment service could not be reached, or the connection broke.");
    } finally {
      // A timer left running would keep the receipt's object busy after the call ended.
      clearTimeout(timer);
    }

    if (response.ok) {
      const value = parse(raw);
      this.#log(path, started, value === undefined ? "unreadable" : "ok", response.status);
      if (value === undefined) return unknownOutcome("upstream_error", "The payment service sent an answer the gateway cannot read.");
      return { ok: true, value };
    }

    const envelope = (typeof raw === "object" && raw !== null ? raw : {}) as {
      error?: { code?: unknown; message?: unknown };
      attempts_left?: unknown;
      min_amount?: unknown;
      max_amount?: unknown;
      receipt?: unknown;
      transfer?: unknown;
    };
    // The code is the upstream's free text as far as the gateway knows: masked like its message (rule 7) before it is logged or answered.
    const upstreamCode =
      typeof envelope.error?.code === "string" ? String(redact(envelope.error.code)).slice(0, MAX_UPSTREAM_MESSAGE) : `HTTP_${response.status}`;
    this.#log(path, started, upstreamCode, response.status);
    const receipt = envelope.receipt === undefined ? undefined : normalizeReceipt(envelope.receipt);
    const transfer = envelope.transfer === undefined ? undefined : normalizeTransfer(envelope.transfer);
    const after = { ...(receipt ? { receipt } : {}), ...(transfer ? { transfer } : {}) };
    /** The upstream said it did nothing, and judged no OTP. */
    const unjudged = (failure: Failure): UpstreamFailure => ({ ok: false, outcome: "rejected", judged: false, upstreamCode, failure, ...after });

    if (response.status === 429 || response.status === 503) {
      // Busy or down.
      const retryAfter = Number(response.headers.get("retry-after"));
      return unjudged({
        code: "upstream_unavailable",
        message: "The payment service is busy or down and did nothing; retry after the time given.",
        upstream_code: upstreamCode,
        retry_after: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 1,
      });
    }
    if (response.status >= 500) {
      // It may have acted before failing: never guess.
      const failure = unknownOutcome("upstream_error", "The payment service failed to handle the request.");
      failure.failure.upstream_code = upstreamCode;
      return failure;
    }
    if (response.status === 401 || upstreamCode === "UNAUTHORIZED") {
      return unjudged({ code: "upstream_error", message: "The payment service refused the gateway's own credential.", upstream_code: upstreamCode });
    }

    const mapping = ERROR_MAP[upstreamCode];
    if (!mapping) {
      // A refusal the gateway does not know: nothing happened, say what the upstream said. An OTP it carried may have
      // been judged before the refusal, so rule 2 counts it as a guess (src/rules/lifecycle.ts otpVerdictOf).
      const carriesOtp = "otp" in body;
      const said = typeof envelope.error?.message === "string" ? String(redact(envelope.error.message)).slice(0, MAX_UPSTREAM_MESSAGE) : "";
      const outcome = carriesOtp ? "Nothing was paid, but the OTP counts as a guess: the payment service may have judged it." : "Nothing was done.";
      return unjudged({
        code: "upstream_refused",
        message: `The payment service refused the request with ${upstreamCode}${said ? `: ${said}` : ""}. ${outcome}`,
        upstream_code: upstreamCode,
      });
    }

    const { message, ...rest } = mapping;
    const failure: Failure = {
      ...rest,
      message: message ?? "The payment service refused the request.",
      upstream_code: upstreamCode,
    };
    if (failure.decline_reason) metric(this.#env, "card_declined", { operation: path, outcome: failure.decline_reason });
    if (failure.code === "otp_invalid" && typeof envelope.attempts_left === "number") failure.attempts_left = envelope.attempts_left;
    if (failure.code === "otp_resend_too_soon") failure.retry_after = Number(response.headers.get("retry-after")) || 1;
    if (failure.code === "amount_out_of_range") {
      if (typeof envelope.min_amount === "number") failure.min_amount = envelope.min_amount;
      if (typeof envelope.max_amount === "number") failure.max_amount = envelope.max_amount;
    }
    return { ok: false, outcome: "rejected", judged: !NOT_JUDGED.has(upstreamCode), failure, upstreamCode, ...after };
  }

  #log(path: string, started: number, outcome: string, status?: number): void {
    const ms = Date.now() - started;
    // On the invocation's canonical line (src/shared/log.ts): a request's, or the alarm's that made the call.
    noteUpstreamCall(this.#requestId, { path, ...(status === undefined ? {} : { status }), outcome, ms });
    metric(this.#env, "upstream_call", { operation: path, outcome: outcomeClass(outcome, status), ms });
  }
}

/**
 * A call's outcome as the metric classes it: a fixed set, never the upstream's
 * own code (its free text). `refused` is a business answer (a decline, a
 * wrong OTP): the service works.
 */
export function outcomeClass(outcome: string, status?: number): UpstreamOutcome {
  if (outcome === "ok" || outcome === "unreadable" || outcome === "timeout") return outcome;
  if (outcome === "network_error") return "network";
  // In the order #call reads an error answer.
  if (status === 429 || status === 503) return "busy";
  if (status !== undefined && status >= 500) return "failed";
  if (status === 401 || outcome === "UNAUTHORIZED") return "unauthorized";
  return "refused";
}

/** An answer about another record than the one asked for is unreadable too. */
const sameId = <T extends { id: string }>(body: T | undefined, id: string) => (body?.id === id ? body : undefined);
const sameTransfer = (body: TransferBody | undefined, id: string) => (body?.receipt_id === id ? body : undefined);

function unknownOutcome(code: "upstream_error" | "upstream_timeout", message: string): UpstreamFailure & { failure: Failure } {
  return { ok: false, outcome: "unknown", judged: true, failure: { code, message } };
}
