import type { Context } from "hono";
import { ApiError, type Outcome, unwrap } from "../errors";
import type { JsonText } from "../receipt-object";
import { log } from "../log";
import type { GatewayEnv } from "../types";

/** Who is asking, and under which request id: what every Durable Object operation needs. */
export function op(c: { var: GatewayEnv["Variables"] }) {
  return { caller: c.var.caller, requestId: c.var.requestId };
}

/**
 * Runs one operation on a record's Durable Object and sends its answer,
 * which the object already serialized. If the object itself fails midway (it
 * was reset or restarted while the call was in flight), the outcome is
 * unknown to this request: its write-ahead note makes the object reconcile on
 * its own, and the caller is told to look before retrying, never 500.
 */
export async function sendFromRecord<T>(c: Context<GatewayEnv>, operation: () => Promise<Outcome<JsonText<T>>>): Promise<Response> {
  let outcome: Outcome<JsonText<T>>;
  try {
    outcome = await operation();
  } catch (err) {
    log("error", "record_object_failed", { request_id: c.var.requestId, error: err instanceof Error ? err.message : String(err) });
    throw new ApiError(
      "upstream_error",
      "The gateway lost track of this operation midway; its outcome is being reconciled. Read the receipt (check-id) before retrying.",
    );
  }
  return c.body(unwrap(outcome), 200, { "content-type": "application/json" });
}
