// HTTP face of the sandbox: authentication, body validation and the error
// envelope of docs/upstream-wire.md. Every state change is one typed RPC call
// into the single SandboxObject.
import { type Context, Hono } from "hono";
import * as v from "valibot";
import { type Failure, fail, type Outcome } from "./answers";
import type { SandboxObject } from "./sandbox-object";
import {
  AnonymousAuthorizeBody,
  AnonymousPayBody,
  AuthorizeBody,
  CancelBody,
  IdBody,
  PayBody,
  ReceiptCreateBody,
  TransferCreateBody,
  TransferPayBody,
} from "./schemas";

type App = { Bindings: Env };
type Sandbox = DurableObjectStub<SandboxObject>;

export const routes = new Hono<App>();

routes.use("*", async (c, next) => {
  const requestId = c.req.header("x-request-id");
  if (requestId) c.header("X-Request-Id", requestId);
  await next();
});

routes.use("/api/*", async (c, next) => {
  const key = c.env.UPSTREAM_API_KEY;
  if (!key || c.req.header("authorization") !== `Bearer ${key}`) {
    return send(c, fail(401, "UNAUTHORIZED", "Missing or wrong partner credential"));
  }
  await next();
});

function sandbox(env: Env): Sandbox {
  if (!env.SANDBOX) throw new Error("SANDBOX binding is missing");
  return env.SANDBOX.get(env.SANDBOX.idFromName("sandbox"));
}

function send(c: Context<App>, outcome: Outcome<unknown> | Failure): Response {
  if (outcome.ok) return c.json(outcome.body as object, 200);
  if (outcome.code === "OTP_RESEND_TOO_SOON" && outcome.extra?.wait !== undefined) {
    c.header("Retry-After", String(Math.ceil(outcome.extra.wait / 1000)));
  }
  if (outcome.retryAfter !== undefined) c.header("Retry-After", String(outcome.retryAfter));
  return c.json({ error: { code: outcome.code, message: outcome.message }, ...outcome.extra }, outcome.status);
}

/** How long tok_sandbox_timeout and tok_sandbox_paid_timeout sit on a pay; waited here so the object stays free. */
function stallMs(env: Env): number {
  const ms = Number(env.SANDBOX_TIMEOUT_DELAY_MS ?? 15_000);
  return Number.isFinite(ms) && ms >= 0 ? ms : 15_000;
}

/**
 * How long after its last send an OTP stays right. Read from the request's
 * env, as the partner credential is, so a test can change it for its own
 * requests to the one shared object (test/support/scripted-upstream.ts).
 */
function otpTtlMs(env: Env): number {
  const ms = Number(env.SANDBOX_OTP_TTL_MS ?? 300_000);
  return Number.isFinite(ms) && ms >= 0 ? ms : 300_000;
}

/** SANDBOX_CANCEL_ACCESS=false: the partner has no access to the cancel method (the seed's "partner without access"). */
const cancelAccess = (env: Env) =>
  String(env.SANDBOX_CANCEL_ACCESS ?? "true")
    .trim()
    .toLowerCase() !== "false";

/** Refused before the receipt is looked up, as an access check is: nothing was cancelled. */
const cancelAccessDenied = (): Failure =>
  fail(
    403,
    "CANCEL_ACCESS_DENIED",
    "This partner has no access to cancel; ask the payment service's support to cancel, giving the receipt id and the reason",
  );

const NOT_JSON = Symbol("not JSON");

/**
 * Only the record identifiers of a body go into the call log, and whether it
 * carried an OTP (never the OTP itself, never card data).
 */
function loggedFields(raw: unknown): { tid: string | null; id: string | null; otp: boolean } {
  const body = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
  const text = (value: unknown) => (typeof value === "string" ? value.slice(0, 128) : null);
  const otp = body.otp !== undefined && body.otp !== null && body.otp !== "";
  return { tid: text(body.tid) ?? text(body.tId), id: text(body.id), otp };
}

function operation<S extends v.GenericSchema>(
  path: string,
  schema: S,
  run: (object: Sandbox, input: v.InferOutput<S>, env: Env) => Promise<Outcome<unknown>>,
): void {
  routes.post(`/api/v1/partner/${path}`, async (c) => {
    const raw: unknown = await c.req.json().catch(() => NOT_JSON);
    const object = sandbox(c.env);
    const parsed = raw === NOT_JSON ? undefined : v.safeParse(schema, raw);
    let outcome: Outcome<unknown>;
    if (!parsed) {
      outcome = fail(400, "VALIDATION_ERROR", "Body is not valid JSON");
    } else if (parsed.success) {
      outcome = await run(object, parsed.output, c.env);
    } else {
      const details = parsed.issues.map((issue) => ({ path: v.getDotPath(issue) ?? "", message: issue.message }));
      outcome = fail(400, "VALIDATION_ERROR", "Body does not match the operation", { details });
    }
    // Logged on arrival, before any stall, as a real upstream would have acted by then.
    await object.recordCall({
      path,
      ...loggedFields(raw),
      status: outcome.ok ? 200 : outcome.status,
      code: outcome.ok ? null : outcome.code,
      request_id: c.req.header("x-request-id") ?? null,
    });
    // Timeout tokens: the answer (an error, or the paid receipt) leaves too late.
    if (outcome.stall) await scheduler.wait(stallMs(c.env));
    return send(c, outcome);
  });
}

operation("receipt/create", ReceiptCreateBody, (s, input) => s.createReceipt(input));
operation("receipt/authorize", AuthorizeBody, (s, input) => s.authorize(input));
operation("receipt/anonymous/authorize", AnonymousAuthorizeBody, (s, input) => s.authorize(input));
operation("receipt/pay", PayBody, (s, input, env) => s.payReceipt(input, false, otpTtlMs(env)));
operation("receipt/anonymous/pay", AnonymousPayBody, (s, input, env) => s.payReceipt(input, true, otpTtlMs(env)));
operation("receipt/hold-confirm", IdBody, (s, input) => s.holdConfirm(input));
operation("receipt/cancel", CancelBody, async (s, input, env) => (cancelAccess(env) ? s.cancel(input) : cancelAccessDenied()));
operation("receipt/check-id", IdBody, (s, input) => s.checkId(input));
operation("a2c/create", TransferCreateBody, (s, input) => s.createTransfer(input));
operation("a2c/pay", TransferPayBody, (s, input) => s.payTransfer(input));
operation("a2c/get-by-id", IdBody, (s, input) => s.getTransfer(input));

// Sandbox-only views of the sandbox's own records, for tests and demos.
routes.get("/__sandbox/receipts/:id", async (c) => {
  const record = await sandbox(c.env).debugReceipt(c.req.param("id"));
  return record ? c.json(record) : send(c, fail(404, "RECEIPT_NOT_FOUND", "No receipt with this id"));
});

routes.get("/__sandbox/a2c/:id", async (c) => {
  const record = await sandbox(c.env).debugTransfer(c.req.param("id"));
  return record ? c.json(record) : send(c, fail(404, "RECEIPT_NOT_FOUND", "No transfer with this id"));
});

routes.get("/__sandbox/calls", async (c) => c.json(await sandbox(c.env).calls(c.req.query("id"))));

routes.notFound((c) => send(c, fail(404, "NOT_FOUND", "No such operation")));

// A sandbox bug must still look like an upstream failure, not a dropped connection.
routes.onError((_error, c) => send(c, fail(500, "INTERNAL_ERROR", "Sandbox internal error")));
