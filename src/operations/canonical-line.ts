/**
 * A request's canonical line (src/shared/log.ts): one JSON line when the
 * answer is ready, with its path (and method, unless POST), status, error
 * code, caller kind, record id, milliseconds, and what the request did meanwhile (the upstream
 * calls, the record's state change, rule 13's refusals), instead of a line
 * for each of them. A successful, quick one is written with probability
 * LOG_SUCCESS_SAMPLE, drawn on the request id (src/shared/log.ts).
 */
import type { MiddlewareHandler } from "hono";
import { readConfig } from "../config/config";
import type { GatewayEnv } from "../http/types";
import { inLine, LogLine } from "../shared/log";

export const canonicalLine: MiddlewareHandler<GatewayEnv> = async (c, next) => {
  const started = Date.now();
  // The API's operations are all POST: a line names its method only when it is another (a probe's GET).
  const method = c.req.method === "POST" ? {} : { method: c.req.method };
  const line = new LogLine("request", { request_id: c.var.requestId, ...method, path: c.req.path }, { sample: readConfig(c.env).logSuccessSample });
  try {
    await inLine(line, next);
  } finally {
    line.set({ status: c.res.status, ...(c.var.caller ? { caller: c.var.caller.kind } : {}), ms: Date.now() - started });
    line.write();
  }
};
