/**
 * What each error code means, in one line: the ErrorCode component of the
 * OpenAPI document and every error answer's description say it, so /docs and
 * generated clients show it beside the code. The contract's Errors table and
 * docs/reference.md's are the source; ERROR_STATUS (src/errors.ts) gives the status.
 */
import type { ErrorCode } from "./errors";

export const ERROR_MEANINGS = {
  invalid_json: "The body does not parse as JSON.",
  invalid_request:
    "A field is missing, of the wrong type, out of its rule or a near miss of a known name; or an unknown merchant or rate (`details` lists what).",
  otp_required: "Pay without an OTP where one is needed; not a guess.",
  unauthorized: "No credentials, or ones that do not verify (`WWW-Authenticate`).",
  card_declined: "The card was declined; `decline_reason` says why.",
  forbidden: "The caller may not do this: a user on a partner-only operation, or the service refuses the partner this cancel.",
  hold_not_enabled: "A create with `is_hold`, or hold-confirm, where the deployment has no hold function.",
  receipt_not_found: "No such receipt, transfer or tid for this caller (another user's looks the same).",
  not_found: "No such path, or no such event id.",
  method_not_allowed: "Another method than the path answers (`Allow` names it).",
  tid_conflict:
    "The tid is taken by a different body or the other kind, or its stored answer is older than 7 days (the message names the receipt to read).",
  tid_in_progress: "A create with this tid is still running; retry after `Retry-After`.",
  operation_in_progress: "Another operation on this receipt or transfer is running; retry after `Retry-After`.",
  receipt_cancelled: "The receipt or transfer is cancelled.",
  receipt_already_paid: "Pay of a receipt that is paid, held or awaiting the supplier.",
  receipt_not_held: "Hold-confirm of a receipt that holds nothing.",
  cancel_not_allowed: "Cancel in state 21 or 57, or for a QR merchant.",
  otp_attempts_exhausted: "The third failed OTP guess; every later pay of a transfer it closed answers this too.",
  otp_expired: "No OTP was sent for this receipt, or it expired: call authorize again. Not a guess.",
  payload_too_large: "A body over 16 KiB.",
  unsupported_media_type: "A body that is not `application/json`.",
  otp_invalid: "A wrong OTP; `attempts_left` says how many guesses remain.",
  amount_out_of_range: "The amount is outside the merchant's limits (`min_amount`, `max_amount`).",
  upstream_refused: "The payment service refused with a code the gateway does not know (`upstream_code`); nothing happened.",
  rate_limited: "Too many calls from this user or address, or the sixth authorize of a receipt; retry after `Retry-After`.",
  otp_resend_too_soon: "Authorize again before `wait` has passed; retry after `Retry-After`.",
  internal_error: "A gateway bug; no input leads here.",
  upstream_error:
    "The payment service's answer was unusable, or it refused the gateway's credential; the outcome is being reconciled: read before retrying.",
  upstream_unavailable: "The payment service said it is busy or down: nothing happened; retry after `Retry-After`.",
  not_ready: "The readiness probe failed (the payment service or D1 does not answer); retry after `Retry-After`.",
  service_misconfigured:
    "The deployment's configuration is unsafe (e.g. development credentials in production); every call answers this until it is fixed.",
  upstream_timeout: "The payment service did not answer in time; the outcome is being reconciled: read before retrying.",
} as const satisfies Record<ErrorCode, string>;
