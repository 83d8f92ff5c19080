/**
 * A request's canonical line (src/shared/log.ts): one JSON line when the
 * answer is ready, with its method, path, status, error code, caller kind,
 * record, milliseconds, and what the request did meanwhile (the upstream
 * calls, the record's state change, rule 13's refusals), instead of a line
 * for each of them.
 */
import type { MiddlewareHandler } from "hono";
import type { GatewayEnv } from "../http/types";
import { inLine, LogLine } from "../shared/log";

export const canonicalLine: MiddlewareHandler<GatewayEnv> = async (c, next) => {
  const started = Date.now();
  const line = new LogLine("request", { request_id: c.var.requestId, method: c.req.method, path: c.req.path });
  try {
    await inLine(line, next);
  } finally {
    line.set({ status: c.res.status, ...(c.var.caller ? { caller: c.var.caller.kind } : {}), ms: Date.now() - started });
    line.write();
  }
};
