import type { GatewayEnv } from "../types";

/** Who is asking, and under which request id: what every Durable Object operation needs. */
export function op(c: { var: GatewayEnv["Variables"] }) {
  return { caller: c.var.caller, requestId: c.var.requestId };
}
