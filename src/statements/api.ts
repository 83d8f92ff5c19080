/**
 * Rule 16's operations and the nightly start: statements/list (the days
 * written, newest first, from their summaries in R2), statements/rebuild
 * (a day started over; every call of it is in the audit trail, as every
 * gateway call is: src/audit/calls.ts), the files as R2 streams them, and the
 * Cron Trigger's kick of yesterday's statement.
 */
import type { Context } from "hono";
import { retentionPolicy } from "../config/retention-policy";
import { ApiError } from "../errors/errors";
import type { GatewayEnv } from "../http/types";
import { clock } from "../shared/clock";
import { log } from "../shared/log";
import { dateIn, dayBounds, isDate, statementTimezone } from "./days";
import { statementKeys } from "./format";
import type { StatementStatus } from "./run";

/** After midnight, how long the nightly run waits for the day's last events to be logged. */
export const SETTLE_MS = 10 * 60_000;

/** The Cron Trigger that starts the statements (wrangler.toml [triggers]): ten minutes past each hour. */
export const STATEMENT_CRON = "10 * * * *";

const stubOf = (env: Env, date: string) => env.STATEMENT.get(env.STATEMENT.idFromName(date));

/** The Cron Trigger's step: yesterday's statement, once the day's last events are logged, unless written. */
export async function kickStatements(env: Env, now: number): Promise<StatementStatus | null> {
  const zone = statementTimezone(env);
  const today = dayBounds(dateIn(now, zone), zone);
  if (now < today.from + SETTLE_MS) return null;
  return stubOf(env, dateIn(today.from - 1, zone)).ensure(dateIn(today.from - 1, zone), now);
}

/** A date the log still holds whole (its delivered events' window), and not after today. */
export function rebuildableDate(env: Env, date: string, now: number): string | null {
  if (!isDate(date)) return "date must be a date, YYYY-MM-DD";
  const zone = statementTimezone(env);
  const { from } = dayBounds(date, zone);
  if (from > now) return "date must not be after today";
  if (from < now - retentionPolicy(env).deliveredEventsMs + 86_400_000)
    return "date is older than the event log keeps a day whole (EVENTS_DELIVERED_RETENTION_DAYS)";
  return null;
}

export async function rebuildStatement(env: Env, date: string): Promise<StatementStatus> {
  const now = clock.now();
  const problem = rebuildableDate(env, date, now);
  if (problem) throw new ApiError("invalid_request", "The request does not match the schema.", { details: [{ path: "date", message: problem }] });
  log("info", "statement_rebuild_requested", { date });
  return stubOf(env, date).rebuild(date, now);
}

export interface StatementSummary extends StatementStatus {
  totals: { merchant_id: number | null; change: string; count: number; amount: number; commission: number }[];
  csv_bytes: number;
  json_bytes: number;
}

/** The days written, newest first, `limit` of them before `after` (a date). */
export async function listStatements(
  env: Env,
  after: string | undefined,
  limit: number,
): Promise<{ statements: StatementSummary[]; has_more: boolean }> {
  const dates: string[] = [];
  let cursor: string | undefined;
  do {
    const listed = await env.STATEMENTS.list({ prefix: "statements/", cursor });
    for (const object of listed.objects) {
      const match = /^statements\/(\d{4}-\d{2}-\d{2})\.summary\.json$/.exec(object.key);
      if (match) dates.push(match[1]!);
    }
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
  const newest = dates
    .sort()
    .reverse()
    .filter((date) => after === undefined || date < after);
  const statements: StatementSummary[] = [];
  for (const date of newest.slice(0, limit)) {
    const object = await env.STATEMENTS.get(statementKeys(date).summary);
    if (object) statements.push((await object.json()) as StatementSummary);
  }
  return { statements, has_more: newest.length > limit };
}

/** GET /api/v1/gateway/statements/{date}.csv (.json): the file as R2 streams it, never read whole into memory. */
export async function statementFile(c: Context<GatewayEnv>): Promise<Response> {
  const match = /^(\d{4}-\d{2}-\d{2})\.(csv|json)$/.exec(c.req.param("file") ?? "");
  if (!match || !isDate(match[1]!))
    throw new ApiError("not_found", "No such statement: ask for statements/YYYY-MM-DD.csv or .json (statements/list names the days written).");
  const [, date, format] = match as unknown as [string, string, "csv" | "json"];
  const object = await c.env.STATEMENTS.get(statementKeys(date)[format]);
  if (!object)
    throw new ApiError("not_found", `No statement of ${date} is written (statements/list names the days written; statements/rebuild writes one).`);
  return new Response(object.body, {
    headers: {
      "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/json",
      "content-disposition": `attachment; filename="statement-${date}.${format}"`,
      "content-length": String(object.size),
      etag: object.httpEtag,
      "x-request-id": c.var.requestId,
    },
  });
}
