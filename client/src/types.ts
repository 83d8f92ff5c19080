/**
 * The client's types, derived from the generated schema.ts: each operation's
 * request body and answer, and its errors as a union discriminated by `code`
 * (with the fields a code always carries made required: `attempts_left` for
 * `otp_invalid`, ...), plus the failures that happen before any answer.
 */
import type { components, paths } from "./schema.js";

export type Receipt = components["schemas"]["Receipt"];
export type ReducedReceipt = components["schemas"]["ReducedReceipt"];
export type TransferReceipt = components["schemas"]["TransferReceipt"];
export type AuthorizeResult = components["schemas"]["AuthorizeResult"];
export type AuditTrail = components["schemas"]["AuditTrail"];
export type FiscalPendingPage = components["schemas"]["FiscalPendingPage"];
/**
 * A webhook's body: a ReceiptEvent or a TransferEvent. A `switch` on `type`,
 * or an `if` on `data.object_type`, narrows `data.object` to the Receipt or
 * the TransferReceipt.
 */
export type Event = components["schemas"]["Event"];
export type ReceiptEvent = components["schemas"]["ReceiptEvent"];
export type TransferEvent = components["schemas"]["TransferEvent"];
export type ReceiptState = components["schemas"]["ReceiptState"];
export type TransferState = components["schemas"]["TransferState"];
/**
 * Every code the gateway answered when this client was generated; the
 * ErrorCode component of openapi.json says what each means. A newer gateway
 * may answer others: the client answers those as `unknown_error`.
 */
export type ErrorCode = components["schemas"]["ErrorCode"];

type Op<P extends keyof paths> = NonNullable<paths[P]["post"]>;

/** The paths that are operations (POST). */
export type OperationPath = { [P in keyof paths]: [NonNullable<paths[P]["post"]>] extends [never] ? never : P }[keyof paths];

export type RequestBody<P extends OperationPath> = Op<P> extends { requestBody: { content: { "application/json": infer B } } } ? B : never;

export type Answer<P extends OperationPath> = Op<P>["responses"] extends { 200: { content: { "application/json": infer B } } } ? B : never;

type ErrorBodies<R> = { [S in keyof R]: S extends 200 ? never : R[S] extends { content: { "application/json": infer B } } ? B : never }[keyof R];

/** The codes operation P documents. */
export type CodeOf<P extends OperationPath> =
  ErrorBodies<Op<P>["responses"]> extends infer B ? (B extends { error: { code: infer C } } ? C & ErrorCode : never) : never;

type ErrorFields = components["schemas"]["Error"]["error"];

/** What a code always carries beside code, message and request_id. */
interface Carried {
  otp_invalid: { attempts_left: number; upstream_code?: string };
  amount_out_of_range: { min_amount: number; max_amount: number };
  card_declined: { decline_reason: string };
  invalid_request: { details: { path: string; message: string }[] };
}

/** One error answer of the gateway: the envelope's `error`, its HTTP status, and `retryAfter` (seconds) where sent. */
export type ApiError<C extends ErrorCode = ErrorCode> = C extends ErrorCode
  ? Omit<ErrorFields, "code"> & { code: C; status: number; retryAfter: number | null } & (C extends keyof Carried ? Carried[C] : unknown)
  : never;

/**
 * An error answer whose code this client does not know (a gateway newer than
 * its schema.ts): `code` is `unknown_error` and `gatewayCode` the code
 * answered. Handle it by `status`; the message is the gateway's.
 */
export type UnknownApiError = Omit<ErrorFields, "code"> & { code: "unknown_error"; gatewayCode: string; status: number; retryAfter: number | null };

/** The errors operation P may answer: its documented codes, and `unknown_error` for any code this client does not know. */
export type GatewayError<P extends OperationPath = OperationPath> = ApiError<CodeOf<P>> | UnknownApiError;

/**
 * Failures without an answer from the gateway. `outcome_unknown`: a call
 * that moves money (authorize, pay, hold-confirm, cancel, a2c/pay) got no
 * usable answer on its last attempt, after its retries; it may or may not
 * have happened. Call again with the result's `idempotencyKey` (the gateway
 * answers what happened and never does it twice), or read the receipt
 * (check-id, a2c/get-by-id), before anything else.
 */
export type ClientError =
  | { code: "network_error" | "timeout" | "aborted"; message: string; status: null; retryAfter: null }
  | { code: "outcome_unknown"; cause: "network_error" | "timeout" | "invalid_response"; message: string; status: number | null; retryAfter: null }
  | { code: "invalid_response"; message: string; status: number; retryAfter: null };

interface Meta {
  /** The X-Request-Id of the last attempt (null if none answered). */
  requestId: string | null;
  /** How many requests were sent (retries included). */
  attempts: number;
  /** The Idempotency-Key every attempt carried (a money move's, or one the caller passed); null when none was sent. */
  idempotencyKey: string | null;
  /** The last answer, if any. */
  response: Response | null;
}

export type Result<P extends OperationPath> =
  | ({ ok: true; data: Answer<P>; status: number; replayed: boolean } & Meta)
  | ({ ok: false; error: GatewayError<P> | ClientError } & Meta);
