/**
 * The contract's error table, one row per code: the HTTP status the gateway
 * answers it with, what it means in one line (the ErrorCode component of the
 * OpenAPI document and every error answer's description say it, so /docs and
 * generated clients show it beside the code), and one example answer: its
 * message as the gateway words it, and the fields it carries. The contract's
 * Errors table and docs/reference.md's are the source.
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { EXAMPLE_RECEIPT_ID, EXAMPLE_REQUEST_ID } from "./examples";

interface ErrorCodeRow {
  status: ContentfulStatusCode;
  meaning: string;
  example: { message: string; [field: string]: unknown };
}

export const ERROR_CODES = {
  invalid_json: {
    status: 400,
    meaning: "The body does not parse as JSON.",
    example: { message: "The request body is not valid JSON at line 2, column 18." },
  },
  invalid_request: {
    status: 400,
    meaning:
      "A field is missing, of the wrong type, out of its rule or not one the operation defines; or an unknown merchant or rate (`details` lists what).",
    example: {
      message: "The request body does not match the schema.",
      details: [{ path: "amount", message: "amount must be an integer number of tiyin" }],
    },
  },
  otp_required: {
    status: 400,
    meaning: "Pay without an OTP where one is needed; not a guess.",
    example: { message: "This payment needs the OTP sent to the card owner (authorize first)." },
  },
  unauthorized: {
    status: 401,
    meaning: "No credentials, or ones that do not verify (`WWW-Authenticate`).",
    example: { message: "Send Authorization: Bearer <partner server key or user JWT>." },
  },
  card_declined: {
    status: 402,
    meaning: "The card was declined; `decline_reason` says why.",
    example: { message: "Card declined: insufficient funds.", decline_reason: "insufficient_funds", upstream_code: "INSUFFICIENT_FUNDS" },
  },
  forbidden: {
    status: 403,
    meaning: "The caller may not do this: a user on a partner-only operation, or the service refuses the partner this cancel.",
    example: { message: "This operation is for the partner backend's server key; users may not call it." },
  },
  hold_not_enabled: {
    status: 403,
    meaning: "A create with `is_hold`, or hold-confirm, where the deployment has no hold function.",
    example: { message: "The hold function is not enabled in this deployment." },
  },
  receipt_not_found: {
    status: 404,
    meaning: "No such receipt, transfer or tid for this caller (another user's looks the same).",
    example: { message: "No such receipt." },
  },
  not_found: {
    status: 404,
    meaning: "No such path, or no such event id.",
    example: { message: "No event with this id." },
  },
  method_not_allowed: {
    status: 405,
    meaning: "Another method than the path answers (`Allow` names it).",
    example: { message: "Partner operations are POST requests with a JSON body; GET is not allowed." },
  },
  tid_conflict: {
    status: 409,
    meaning:
      "The tid is taken by a different body or the other kind, or its stored answer is older than 7 days (the message names the receipt to read).",
    example: {
      message: `This tid already created receipt ${EXAMPLE_RECEIPT_ID} with another body: read it with check-id or check-tid, or create with a new tid.`,
    },
  },
  tid_in_progress: {
    status: 409,
    meaning: "A create with this tid is still running; retry after `Retry-After`.",
    example: { message: "The create with this tid is still in flight." },
  },
  idempotency_key_reused: {
    status: 409,
    meaning: "This Idempotency-Key was used by the same caller for this operation on this record with another body (rule 11): use a new key.",
    example: { message: "This Idempotency-Key was used for another request on this receipt; use a new key for a new request." },
  },
  operation_in_progress: {
    status: 409,
    meaning: "Another operation on this receipt or transfer is running; retry after `Retry-After`.",
    example: { message: "Another operation is in flight for this receipt." },
  },
  receipt_cancelled: {
    status: 409,
    meaning: "The receipt or transfer is cancelled.",
    example: { message: "The receipt is cancelled.", upstream_code: "RECEIPT_CANCELLED" },
  },
  receipt_already_paid: {
    status: 409,
    meaning: "Pay of a receipt that is paid, held or awaiting the supplier.",
    example: { message: "The receipt is already paid.", upstream_code: "RECEIPT_ALREADY_PAID" },
  },
  receipt_not_held: {
    status: 409,
    meaning: "Hold-confirm of a receipt that holds nothing.",
    example: { message: "The receipt holds no amount to confirm.", upstream_code: "RECEIPT_NOT_HELD" },
  },
  cancel_not_allowed: {
    status: 409,
    meaning: "Cancel in state 21 or 57, or for a QR merchant.",
    example: { message: "The payment service refuses to cancel this receipt.", upstream_code: "CANCEL_NOT_ALLOWED" },
  },
  otp_attempts_exhausted: {
    status: 409,
    meaning: "The third failed OTP guess; every later pay of a transfer it closed answers this too.",
    example: { message: "Three wrong OTPs: the receipt is cancelled. Create a new one." },
  },
  receipt_expired: {
    status: 409,
    meaning:
      "Rule 12: the receipt or transfer expired (unpaid `RECEIPT_EXPIRY_HOURS` after its creation, or held and not confirmed within `HOLD_EXPIRY_DAYS`) and the gateway cancelled it or closed it at the edge; every operation on it but a read answers this. Create a new one.",
    example: { message: "The receipt expired unpaid and is cancelled; create a new one." },
  },
  otp_expired: {
    status: 409,
    meaning: "No OTP was sent for this receipt, or it expired: call authorize again. Not a guess.",
    example: { message: "No OTP was sent for this receipt, or it expired: call authorize again. This did not count as a guess." },
  },
  payload_too_large: {
    status: 413,
    meaning: "A body over 16 KiB.",
    example: { message: "Request bodies are limited to 16 KiB." },
  },
  unsupported_media_type: {
    status: 415,
    meaning: "A body that is not `application/json`.",
    example: { message: "Send the request body as JSON, with Content-Type: application/json." },
  },
  otp_invalid: {
    status: 422,
    meaning: "A wrong OTP; `attempts_left` says how many guesses remain.",
    example: { message: "The OTP is wrong.", attempts_left: 2, upstream_code: "OTP_INVALID" },
  },
  amount_out_of_range: {
    status: 422,
    meaning: "The amount is outside the merchant's limits (`min_amount`, `max_amount`).",
    example: {
      message: "The amount is outside the merchant's limits (min_amount, max_amount).",
      min_amount: 100000,
      max_amount: 500000000,
      upstream_code: "AMOUNT_OUT_OF_RANGE",
    },
  },
  upstream_refused: {
    status: 422,
    meaning: "The payment service refused with a code the gateway does not know (`upstream_code`); nothing happened.",
    example: { message: "The payment service refused the request with LIMIT_EXCEEDED. Nothing was done.", upstream_code: "LIMIT_EXCEEDED" },
  },
  rate_limited: {
    status: 429,
    meaning: "Too many calls from this user or address, or the sixth authorize of a receipt; retry after `Retry-After`.",
    example: { message: "Too many pay calls; wait before trying again." },
  },
  risk_limited: {
    status: 429,
    meaning:
      "Rule 13: this card number, this card's OTPs or this user's cards or OTPs are past their limit (`rule` names it); nothing was sent upstream; retry after `Retry-After`.",
    example: {
      message: "This card number was used too many times in the last hour (rule 13, card_uses_per_hour); retry after Retry-After seconds.",
      rule: "card_uses_per_hour",
    },
  },
  otp_resend_too_soon: {
    status: 429,
    meaning: "Authorize again before `wait` has passed; retry after `Retry-After`.",
    example: { message: "An OTP was sent moments ago; wait before asking for another." },
  },
  internal_error: {
    status: 500,
    meaning: "A gateway bug; no input leads here.",
    example: { message: "The gateway failed to handle this request." },
  },
  upstream_error: {
    status: 502,
    meaning:
      "The payment service's answer was unusable, or it refused the gateway's credential; the outcome is being reconciled: read before retrying.",
    example: { message: "The payment service could not be reached, or the connection broke." },
  },
  upstream_unavailable: {
    status: 503,
    meaning: "The payment service said it is busy or down: nothing happened; retry after `Retry-After`.",
    example: { message: "The payment service is busy or down and did nothing; retry after the time given." },
  },
  not_ready: {
    status: 503,
    meaning:
      "The readiness probe failed (the payment service or D1 does not answer); or, after a rollback, the receipt or transfer was stored by a newer release of the gateway and nothing was done; retry after `Retry-After`.",
    example: { message: "Not ready: the payment service did not answer within 2 s." },
  },
  service_misconfigured: {
    status: 503,
    meaning: "The deployment's configuration is unsafe (e.g. development credentials in production); every call answers this until it is fixed.",
    example: { message: "This deployment is misconfigured: TID_SECRET is not set." },
  },
  upstream_timeout: {
    status: 504,
    meaning: "The payment service did not answer in time; the outcome is being reconciled: read before retrying.",
    example: { message: "The payment service did not answer in time." },
  },
} as const satisfies Record<string, ErrorCodeRow>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Every code, in the table's order. */
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as ErrorCode[];

/** The error answer of `code`, as the document shows it. */
export const errorExample = (code: ErrorCode) => {
  const { message, ...fields } = ERROR_CODES[code].example;
  return { error: { code, message, request_id: EXAMPLE_REQUEST_ID, ...fields } };
};
