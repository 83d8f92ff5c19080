import type { Context } from "hono";
import type { JsonText } from "../receipt-object";
import type { GatewayEnv } from "../types";

/** Who is asking, and under which request id: what every Durable Object operation needs. */
export function op(c: { var: GatewayEnv["Variables"] }) {
  return { caller: c.var.caller, requestId: c.var.requestId };
}

/** Sends an answer a Durable Object already serialized. */
export function sendJson<T>(c: Context<GatewayEnv>, text: JsonText<T>): Response {
  return c.body(text, 200, { "content-type": "application/json" });
}
