import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { currentLine, log } from "../shared/log";
import { type DeclineReason, ERROR_CODES, type ErrorCode, type Language, userMessage } from "./error-codes";
import { languageOf } from "./language";

/**
 * What a refusal of storage a newer gateway wrote says first (src/record/schema.ts's NewerSchemaError). The
 * message crosses the object's RPC boundary and its class does not, so callers recognise it by this.
 */
export const NEWER_SCHEMA = "stored by a newer gateway";

/** Whether `err` is a NewerSchemaError, here or thrown across the object's RPC boundary. */
export const isNewerSchema = (err: unknown): boolean => err instanceof Error && err.message.includes(NEWER_SCHEMA);

/** The codes the gateway may answer are the rows of the error table. */
export type { ErrorCode };

/** Fields beside code/message/request_id that some errors carry. */
export interface ErrorExtras {
  details?: { path: string; message: string }[];
  attempts_left?: number;
  upstream_code?: string;
  /** card_declined: why; each reason has its user_message (src/errors/error-codes.ts DECLINE_REASONS). */
  decline_reason?: DeclineReason;
  /** The merchant's limits, on amount_out_of_range, as the upstream sent them. */
  min_amount?: number;
  max_amount?: number;
  /** The limit of rule 13 that refused the call, on risk_limited. */
  rule?: string;
  /** Seconds; rendered as the Retry-After header, not in the body. */
  retry_after?: number;
  /** Response headers the error comes with (Allow on 405, WWW-Authenticate on 401); not in the body. */
  headers?: Record<string, string>;
}

/**
 * A failure as plain data, so it can cross a Durable Object RPC boundary
 * (thrown errors lose their fields there) and be rebuilt as an ApiError.
 */
export interface Failure extends ErrorExtras {
  code: ErrorCode;
  message: string;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: Failure };

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly extras: ErrorExtras;

  constructor(code: ErrorCode, message: string, extras: ErrorExtras = {}) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.extras = extras;
  }

  get status(): ContentfulStatusCode {
    return ERROR_CODES[this.code].status;
  }

  static from(failure: Failure): ApiError {
    const { code, message, ...extras } = failure;
    return new ApiError(code, message, extras);
  }

  toFailure(): Failure {
    return { code: this.code, message: this.message, ...this.extras };
  }
}

export const fail = (code: ErrorCode, message: string, extras: ErrorExtras = {}): { ok: false; error: Failure } => ({
  ok: false,
  error: { code, message, ...extras },
});

/** Unwraps an Outcome from a Durable Object, throwing its failure as an ApiError. */
export function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw ApiError.from(outcome.error);
}

/** Retry-After of a record a newer release stored: a rollback lasts until the release is rolled forward again. */
const NEWER_RECORD_RETRY_SECONDS = 60;

/**
 * Renders any error as the contract's envelope, its user_message in the
 * language the request's Accept-Language chose (src/errors/language.ts). The one
 * place errors become responses.
 */
export function renderError(err: unknown, c: Context): Response {
  const requestId = c.get("requestId") ?? "";
  const language = languageOf(c.get("language"));
  let apiError: ApiError;
  if (err instanceof ApiError) {
    apiError = err;
  } else if (err instanceof HTTPException && err.status === 413) {
    apiError = new ApiError("payload_too_large", "Request bodies are limited to 16 KiB.");
  } else if (err instanceof HTTPException && err.status === 400) {
    apiError = new ApiError("invalid_json", "The request body is not valid JSON.");
  } else if (isNewerSchema(err)) {
    // A rollback put this release on a record a newer one stored: it is not ready for it until that release serves again.
    log("warn", "record_schema_newer", { request_id: requestId, error: (err as Error).message });
    apiError = new ApiError(
      "not_ready",
      "This receipt or transfer was stored by a newer release of the gateway than the one serving now; nothing was done. Retry after Retry-After.",
      { retry_after: NEWER_RECORD_RETRY_SECONDS },
    );
  } else {
    // A bug, not an input: log what it was (redacted) and answer without detail.
    log("error", "unhandled_error", {
      request_id: requestId,
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    });
    apiError = new ApiError("internal_error", "The gateway failed to handle this request.");
  }
  const failure = apiError.toFailure();
  // The request's canonical line names the code it was answered with (src/operations/canonical-line.ts).
  currentLine()?.set({ code: failure.code });
  const answer = errorAnswer(failure, requestId, language);
  for (const [name, value] of Object.entries(answer.headers)) c.header(name, value);
  return c.body(answer.body, answer.status, { "content-type": "application/json" });
}

/**
 * A failure as the contract's envelope: its status, the JSON text of its
 * body (with the user_message in `language`) and its headers
 * (Content-Language naming that language, Retry-After, and any the failure
 * names). Pure, so that an answer can be kept and sent again byte for byte
 * (rule 11), in the language it was first sent in.
 */
export function errorAnswer(
  failure: Failure,
  requestId: string,
  language: Language,
): { status: ContentfulStatusCode; body: string; headers: Record<string, string> } {
  const { code, message, retry_after, headers, ...extras } = failure;
  const out: Record<string, string> = { ...(headers ?? {}), "Content-Language": language };
  if (retry_after !== undefined) out["Retry-After"] = String(Math.max(1, Math.ceil(retry_after)));
  const user_message = userMessage(code, language, extras.decline_reason);
  return {
    status: ERROR_CODES[code].status,
    body: JSON.stringify({ error: { code, message, user_message, request_id: requestId, ...extras } }),
    headers: out,
  };
}
