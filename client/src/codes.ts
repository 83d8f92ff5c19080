/**
 * The error codes this client knows: those of its schema.ts. The compiler
 * holds the list to the ErrorCode type both ways (`satisfies`), so
 * regenerating schema.ts with a new code fails the typecheck until it is
 * added here. Any other code an answer carries is `unknown_error`.
 */
import type { ErrorCode } from "./types.js";

const KNOWN = {
  invalid_json: true,
  invalid_request: true,
  otp_required: true,
  unauthorized: true,
  card_declined: true,
  forbidden: true,
  hold_not_enabled: true,
  receipt_not_found: true,
  not_found: true,
  method_not_allowed: true,
  tid_conflict: true,
  tid_in_progress: true,
  operation_in_progress: true,
  receipt_cancelled: true,
  receipt_already_paid: true,
  receipt_not_held: true,
  cancel_not_allowed: true,
  otp_attempts_exhausted: true,
  otp_expired: true,
  idempotency_key_reused: true,
  receipt_expired: true,
  payload_too_large: true,
  unsupported_media_type: true,
  otp_invalid: true,
  amount_out_of_range: true,
  upstream_refused: true,
  rate_limited: true,
  otp_resend_too_soon: true,
  risk_limited: true,
  internal_error: true,
  upstream_error: true,
  upstream_unavailable: true,
  not_ready: true,
  service_misconfigured: true,
  upstream_timeout: true,
} as const satisfies Record<ErrorCode, true>;

const CODES: ReadonlySet<string> = new Set(Object.keys(KNOWN));

/** Whether this client knows `code`. */
export const isKnownCode = (code: string): code is ErrorCode => CODES.has(code);
