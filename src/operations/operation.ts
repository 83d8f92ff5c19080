/**
 * What an operation is, described once: its path, request and answer, who
 * may call it, its rate limit, the lifecycle operation it runs, the upstream
 * calls it makes and what it does with a valid request (the receipt object's
 * method, or a create). src/operations/router.ts makes each description a
 * route and its part of the OpenAPI document; src/operations/index.ts lists
 * them all.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { GenericSchema, InferOutput } from "valibot";
import { IDEMPOTENCY_KEY_PATTERN } from "../api/schemas";
import { readConfig } from "../config/config";
import { ApiError, type Failure, isNewerSchema, unwrap } from "../errors/errors";
import { languageOf } from "../errors/language";
import type { LimitedOperation } from "../http/rate-limit";
import type { GatewayEnv } from "../http/types";
import type { ReceiptObject } from "../record/receipt-object";
import { type OperationContext, type RecordAnswer, receiptStub } from "../record-stub";
import type { Kind, KindName, RecordBody } from "../rules/kinds";
import type { Operation } from "../rules/lifecycle";
import { currentLine, log } from "../shared/log";
import { fingerprint } from "../tids/tid-index";
import { createOnce } from "./creation";
import type { RouteDoc } from "./openapi";

export interface OperationDescription<Request extends GenericSchema = GenericSchema> extends RouteDoc {
  /** Under its API's prefix (src/operations/index.ts). */
  path: `/${string}`;
  /** The JSON body: 400 invalid_request unless it passes, before the rate limit and the handler. */
  request: Request;
  /**
   * "partner": the partner backend's server key only (absent: it or a user's
   * JWT). A partner-only API's door refuses users 403 before the body is read
   * (src/operations/router.ts); an operation on a record in another API
   * leaves the refusal to its lifecycle operation, which must refuse users.
   */
  callers?: "partner";
  /** The rate limit it counts against once its body is valid (src/http/rate-limit.ts). */
  limit?: LimitedOperation;
  /** The operation of the lifecycle table (src/rules/lifecycle.ts) the receipt's object decides it by. */
  lifecycle?: Operation;
  /** The upstream calls a successful request makes (docs/upstream-wire.md's paths). */
  upstream: string[];
  /** What it does with the valid body. */
  handle(c: Context<GatewayEnv>, input: InferOutput<Request>): Promise<Response>;
}

/** One description, typed by its own request schema. */
export const describe = <Request extends GenericSchema>(description: OperationDescription<Request>) => description;

/** The operations under one tag of the document. */
export interface Section {
  tag: string;
  operations: readonly OperationDescription[];
}

const contextOf = (c: Context<GatewayEnv>): OperationContext => ({
  caller: c.var.caller,
  requestId: c.var.requestId,
  language: languageOf(c.var.language),
});

/**
 * An operation on the Durable Object of the record the body's `id` names:
 * `run` calls one of its methods, and its answer is sent.
 */
export function onRecord<Input extends { id: string }>(
  kind: KindName,
  run: (record: DurableObjectStub<ReceiptObject>, input: Input, op: OperationContext) => Promise<RecordAnswer<unknown>>,
) {
  return (c: Context<GatewayEnv>, input: Input) =>
    sendFromRecord(c, () => run(receiptStub(c.env, kind, input.id), input, { ...contextOf(c), record: { kind, id: input.id } }));
}

/** Rule 11's header, as the document gives it. */
const IDEMPOTENCY_KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** The request's Idempotency-Key, if it brought one; anything but 1-255 printable ASCII characters, not all spaces, is 400 invalid_request. */
export function idempotencyKeyOf(c: Context<GatewayEnv>): string | undefined {
  const key = c.req.header("idempotency-key");
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw new ApiError("invalid_request", "The request does not match the schema.", {
      details: [
        { path: "Idempotency-Key", message: "Idempotency-Key must be 1 to 255 printable ASCII characters, not starting or ending with a space" },
      ],
    });
  }
  return key;
}

/**
 * A money move on the record the body's `id` names, safe to repeat (rule
 * 11): its Idempotency-Key, if any, goes to the record's object with the
 * body's keyed fingerprints (under every TID_SECRET in use, so a rotation
 * keeps matching; card numbers, expiries, OTPs and tokens never leave this
 * request in the clear), and the object answers a repeat from what it kept.
 */
export function keyed<Input extends { id: string }>(
  kind: KindName,
  run: (record: DurableObjectStub<ReceiptObject>, input: Input, op: OperationContext) => Promise<RecordAnswer<unknown>>,
) {
  return async (c: Context<GatewayEnv>, input: Input) => {
    const key = idempotencyKeyOf(c);
    const config = readConfig(c.env);
    const request = { path: new URL(c.req.url).pathname, input };
    const idempotency =
      key === undefined
        ? undefined
        : { key, fingerprints: await Promise.all([config.tidSecret, ...config.formerTidSecrets].map((secret) => fingerprint(secret, request))) };
    return sendFromRecord(c, () =>
      run(receiptStub(c.env, kind, input.id), input, { ...contextOf(c), record: { kind, id: input.id }, ...(idempotency ? { idempotency } : {}) }),
    );
  };
}

/**
 * Runs one operation on a record's Durable Object and sends its answer,
 * which the object already serialized. If the object itself fails midway (it
 * was reset or restarted while the call was in flight), the outcome is
 * unknown to this request: its write-ahead note makes the object reconcile on
 * its own, and the caller is told to look before retrying, never 500. One
 * that refused to read a record a newer release stored did nothing: that
 * refusal is answered as it is (503 not_ready, src/errors/errors.ts).
 */
export async function sendFromRecord(c: Context<GatewayEnv>, operation: () => Promise<RecordAnswer<unknown>>): Promise<Response> {
  let outcome: RecordAnswer<unknown>;
  try {
    outcome = await operation();
  } catch (err) {
    if (isNewerSchema(err)) throw err;
    log("error", "record_object_failed", { request_id: c.var.requestId, error: err instanceof Error ? err.message : String(err) });
    throw new ApiError(
      "upstream_error",
      "The gateway lost track of this operation midway; its outcome is being reconciled. Read the receipt (check-id) before retrying.",
    );
  }
  // What the record's object did for this request goes on its one canonical line (src/shared/log.ts).
  if (outcome.log) currentLine()?.merge(outcome.log);
  // Rule 11: the answer an earlier request with this key got, sent again as it was.
  if (outcome.replayed) {
    currentLine()?.set({ replayed: true });
    const { status, body, headers } = outcome.replayed;
    return c.body(body, status as ContentfulStatusCode, { ...headers, "content-type": "application/json", "Idempotent-Replayed": "true" });
  }
  return c.body(unwrap(outcome), 200, { "content-type": "application/json" });
}

/**
 * A create of `kind`, exactly once per tid (src/operations/creation.ts), from the body
 * as `toCreate` makes it; the answer of an earlier identical create (kept by
 * its record's object) comes with `Idempotent-Replayed: true`.
 */
export function created<Body extends RecordBody, Create extends { tid: string }, Input = Create>(
  kind: Kind<Body, Create>,
  toCreate: (input: Input) => Create = (input) => input as unknown as Create,
  admit?: (c: Context<GatewayEnv>, input: Input) => Promise<Failure | null>,
) {
  return async (c: Context<GatewayEnv>, input: Input): Promise<Response> => {
    // The tid row's completion runs after the answer (src/operations/creation.ts), held open by the request's waitUntil.
    // Rule 11: a create accepts an Idempotency-Key (well formed), and its tid decides (rule 1).
    idempotencyKeyOf(c);
    const after = (work: Promise<unknown>) => c.executionCtx.waitUntil(work);
    // `admit` (rule 13) runs once the tid is this request's, after every check that could refuse it first.
    const { body, replayed } = await createOnce(c.env, c.var.caller, c.var.requestId, kind, toCreate(input), after, admit && (() => admit(c, input)));
    if (replayed) c.header("Idempotent-Replayed", "true");
    currentLine()?.set({ id: kind.idOf(body), ...(replayed ? { replayed: true } : {}) });
    return c.json(body, 200);
  };
}

/** What a pay can be refused with, for a receipt (token or card number) or a transfer alike. */
export const PAY_ERRORS = [
  "otp_required",
  "otp_expired",
  "card_declined",
  "receipt_not_found",
  "operation_in_progress",
  "receipt_cancelled",
  "receipt_already_paid",
  "receipt_expired",
  "otp_attempts_exhausted",
  "otp_invalid",
  "rate_limited",
] as const;
