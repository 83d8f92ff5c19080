/**
 * Rule 15: every call to the gateway's own operations (`/api/v1/gateway/...`)
 * and to the operator's restore is an entry of the audit trail: the
 * operation, who called (`partner`, `user:<sub>` refused, `unauthenticated`),
 * the request id, the outcome (`ok` or the error code), and the filters it
 * was asked with, from a fixed list of fields that hold no secret (never a
 * body, a key or a header). Appended before the answer leaves; a failed
 * append is logged at error level and the answer still goes (what the
 * operation did is done).
 */
import { createMiddleware } from "hono/factory";
import { ApiError } from "../errors/errors";
import type { GatewayEnv } from "../http/types";
import { log } from "../shared/log";
import { redact } from "../shared/redact";
import { appendAudit } from "./append";
import type { AuditLine } from "./entries";

/** Body fields an entry keeps, as they were sent (each a scalar; ids, dates, filters). */
const KEPT = ["id", "receipt_id", "user", "staff", "kind", "type", "delivery", "date", "from", "to", "after", "limit", "dry_run"] as const;

function keptFields(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== "object" || Array.isArray(body)) return {};
  const out: Record<string, unknown> = {};
  for (const field of KEPT) {
    const value = (body as Record<string, unknown>)[field];
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      out[field] = typeof value === "string" ? value.slice(0, 255) : value;
  }
  return out;
}

/** The code of an error answer, from the error thrown or the answer's body. */
async function outcomeOf(status: number, error: unknown, response: Response | undefined): Promise<string> {
  if (status < 400) return "ok";
  if (error instanceof ApiError) return error.code;
  try {
    const body = (await response?.clone().json()) as { error?: { code?: unknown } } | undefined;
    if (typeof body?.error?.code === "string") return body.error.code;
  } catch {
    // Not JSON: the status says it.
  }
  return String(status);
}

/** The middleware: `prefix` is cut from the path to name the operation (`events/list`). */
export const auditCalls = (prefix: string) =>
  createMiddleware<GatewayEnv>(async (c, next) => {
    let thrown: unknown;
    try {
      await next();
    } catch (err) {
      thrown = err;
    }
    const status = thrown instanceof ApiError ? thrown.status : thrown ? 500 : c.res.status;
    const caller = c.var.caller;
    let body: unknown;
    const cached = c.req.bodyCache.text;
    if (caller && cached) {
      try {
        body = JSON.parse(await cached);
      } catch {
        body = undefined;
      }
    }
    const fields = keptFields(body);
    const at = Date.now();
    const requestId = c.var.requestId;
    const line: AuditLine = {
      id: `g:${redact(requestId)}:${at}`,
      at,
      source: "gateway",
      op: c.req.path.startsWith(prefix) ? c.req.path.slice(prefix.length).replace(/^\/+/, "") : c.req.path,
      actor: caller ? (caller.kind === "partner" ? "partner" : `user:${caller.id}`) : "unauthenticated",
      request_id: requestId,
      outcome: await outcomeOf(status, thrown ?? c.error, thrown ? undefined : c.res),
      ...(typeof fields.receipt_id === "string"
        ? { receipt_id: fields.receipt_id }
        : typeof fields.id === "string" && !String(fields.id).startsWith("evt_")
          ? { receipt_id: fields.id as string }
          : {}),
      ...(typeof fields.user === "string" ? { user: fields.user } : {}),
      detail: { method: c.req.method, status, ...fields },
    };
    try {
      await appendAudit(c.env, `gateway:${requestId}`, [line]);
    } catch (err) {
      log("error", "audit_append_failed", { request_id: requestId, op: line.op, error: err instanceof Error ? err.message : String(err) });
    }
    if (thrown) throw thrown;
  });
